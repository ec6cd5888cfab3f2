import Foundation
import XCTest
@testable import ShoeboxKit

final class BackgroundSyncerTests: XCTestCase {
    private var folder = ""
    /// Descriptors the syncer does not own (read ends of pipes).
    private var ours: [Int32] = []

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "syncer-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for fd in ours { close(fd) }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A file with 64 KiB written, not yet synced; the syncer closes it.
    private func writtenFile(_ index: Int) -> Int32 {
        let fd = open(folder + "/\(index)", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let bytes = [UInt8](repeating: UInt8(index & 0xFF), count: 64 * 1024)
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count)
        return fd
    }

    /// fdatasync on a pipe fails with EINVAL: a descriptor whose sync is known to fail.
    private func unsyncable() -> Int32 {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        ours.append(ends[0])
        return ends[1]
    }

    private func isOpen(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) != -1 }

    func testFilesSyncWithoutErrorAndAreClosedByFinish() {
        let syncer = BackgroundSyncer()
        let files = (0..<20).map(writtenFile)
        for fd in files { syncer.start(fd) }
        XCTAssertNil(syncer.finish())
        XCTAssertEqual(files.filter(isOpen), [], "finish closes what it synced")
    }

    func testFinishWaitsForTheLastSyncStartedAndReportsItsFailure() {
        let syncer = BackgroundSyncer()
        // More descriptors than threads: the failing one waits in the queue behind them.
        for index in 0..<(BackgroundSyncer.maxThreads * 3) { syncer.start(writtenFile(index)) }
        syncer.start(unsyncable())
        XCTAssertEqual(syncer.finish(), EINVAL)
    }

    func testAFailureIsReportedOnceThenTheSyncerIsUsableAgain() {
        let syncer = BackgroundSyncer()
        syncer.start(unsyncable())
        syncer.start(writtenFile(0))
        XCTAssertEqual(syncer.finish(), EINVAL)
        XCTAssertNil(syncer.finish(), "nothing started since: no error")
        syncer.start(writtenFile(1))
        XCTAssertNil(syncer.finish())
    }

    func testFilesStagedOneByOneReuseOneThread() {
        // A long linger: the reuse does not depend on how fast this machine runs the loop.
        let syncer = BackgroundSyncer(linger: 30)
        for index in 0..<20 {
            syncer.start(writtenFile(index))
            XCTAssertNil(syncer.finish())
        }
        XCTAssertEqual(syncer.threadCounts.started, 1, "each file would start a thread of its own")
    }

    func testThreadsEndOnceIdle() {
        let syncer = BackgroundSyncer(linger: 0.05)
        syncer.start(writtenFile(0))
        XCTAssertNil(syncer.finish())
        let deadline = Date(timeIntervalSinceNow: 10)
        while syncer.threadCounts.alive > 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(syncer.threadCounts.alive, 0, "the thread ends once idle for \(syncer.linger) s")
        syncer.start(writtenFile(1))
        XCTAssertNil(syncer.finish())
        XCTAssertEqual(syncer.threadCounts.started, 2)
    }

    func testFinishWithNothingStartedReturnsAtOnce() {
        XCTAssertNil(BackgroundSyncer().finish())
    }
}
