import Foundation
import XCTest
@testable import ShoeboxKit

/// Staging files made ahead on a thread of their own: handed out without waiting, made only
/// once asked for, never left behind, and a base that fails is the caller's to hear about.
final class SpareStagingFilesTests: XCTestCase {
    /// A staging side that makes numbered files in a temporary folder, noting the thread of each.
    private final class CountingStaging: UploadStaging, @unchecked Sendable {
        let folder: String
        private let lock = NSLock()
        private var counter = 0
        private(set) var madeOnCaller = 0
        private(set) var live: Set<String> = []
        var failing = false
        let caller = pthread_self()

        init(folder: String) { self.folder = folder }

        func makeStagingFile() throws -> StagingFile {
            try lock.withLock {
                if failing { throw POSIXFileError(path: folder, operation: "create", code: ENOSPC) }
                counter += 1
                if pthread_equal(pthread_self(), caller) != 0 { madeOnCaller += 1 }
                let path = folder + "/\(counter).part"
                let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw POSIXFileError(path: path, operation: "create", code: errno) }
                live.insert(path)
                return StagingFile(path: path, descriptor: fd)
            }
        }

        func discard(_ file: StagingFile) {
            lock.withLock {
                guard live.remove(file.path) != nil else { return }
                close(file.descriptor)
                unlink(file.path)
            }
        }

        var liveCount: Int { lock.withLock { live.count } }
    }

    private var folder = ""

    override func setUpWithError() throws {
        folder = try makeTemporaryDirectory(self).path
    }

    private func waitUntil(_ condition: () -> Bool) {
        let deadline = Date(timeIntervalSinceNow: 10)
        while !condition() && Date() < deadline { usleep(1000) }
    }

    func testFilesAreMadeAheadAsTheyAreAskedForUpToCountAndTheUnusedRemovedOnClose() throws {
        let base = CountingStaging(folder: folder)
        let spares = SpareStagingFiles(base: base, count: 4)
        usleep(20_000)
        XCTAssertEqual(base.liveCount, 0, "a run that downloads nothing makes no file")
        var taken = [try spares.makeStagingFile()]
        XCTAssertEqual(base.madeOnCaller, 1, "with none ready, the first is made at once")
        waitUntil { spares.readyCount == 1 }
        usleep(20_000)
        XCTAssertEqual(spares.readyCount, 1, "as many kept ready as were asked for so far")
        for _ in 0..<3 { taken.append(try spares.makeStagingFile()) }
        waitUntil { spares.readyCount == 4 }
        XCTAssertEqual(spares.readyCount, 4)
        for _ in 0..<4 { taken.append(try spares.makeStagingFile()) }
        waitUntil { spares.readyCount == 4 }
        usleep(20_000)
        XCTAssertEqual(spares.readyCount, 4, "never more than count")
        XCTAssertLessThanOrEqual(base.madeOnCaller, 3, "past the first few, files come made ahead")
        XCTAssertEqual(Set(taken.map(\.path)).count, 8)
        for file in taken { XCTAssertEqual(write(file.descriptor, "x", 1), 1, "a spare is an open, writable file") }
        spares.close()
        XCTAssertEqual(spares.readyCount, 0)
        XCTAssertEqual(base.liveCount, 8, "the unused spares are removed, the files handed out are not")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).count, 8)
        for file in taken { base.discard(file) }
    }

    func testAfterCloseFilesAreMadeWhenAskedAndNoneAreLeftBehind() throws {
        let base = CountingStaging(folder: folder)
        let spares = SpareStagingFiles(base: base, count: 8)
        let file = try spares.makeStagingFile()
        spares.close()
        let late = try spares.makeStagingFile()
        usleep(20_000)
        XCTAssertEqual(spares.readyCount, 0, "no refill once closed")
        XCTAssertEqual(base.liveCount, 2)
        spares.discard(file)
        spares.discard(late)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }

    func testWithoutAThreadEveryFileIsMadeWhenAsked() throws {
        let base = CountingStaging(folder: folder)
        let spares = SpareStagingFiles(base: base, count: 4, launcher: .refusing(after: 0))
        for _ in 0..<3 { spares.discard(try spares.makeStagingFile()) }
        XCTAssertEqual(base.madeOnCaller, 3)
        XCTAssertEqual(spares.readyCount, 0)
        spares.close()
        XCTAssertEqual(base.liveCount, 0)
    }

    func testABaseThatCannotMakeFilesFailsTheRequestWithItsError() throws {
        let base = CountingStaging(folder: folder)
        base.failing = true
        let spares = SpareStagingFiles(base: base, count: 4)
        XCTAssertThrowsError(try spares.makeStagingFile()) { error in
            XCTAssertEqual((error as? POSIXFileError)?.code, ENOSPC)
        }
        usleep(20_000)
        XCTAssertEqual(spares.readyCount, 0)
        base.failing = false
        _ = try spares.makeStagingFile()
        waitUntil { spares.readyCount == 2 }
        XCTAssertEqual(spares.readyCount, 2, "refills start again once files can be made (two asked for so far)")
        spares.close()
        XCTAssertEqual(base.liveCount, 1)
    }
}
