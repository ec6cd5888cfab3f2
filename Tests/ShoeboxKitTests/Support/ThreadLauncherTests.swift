import Foundation
import XCTest
@testable import ShoeboxKit

/// Every user of a thread has a way on when the system refuses it (a pids limit):
/// before, work handed to a thread that never started was waited for forever.
final class ThreadLauncherTests: XCTestCase {
    func testASystemLauncherRunsTheBody() {
        let ran = DispatchSemaphore(value: 0)
        XCTAssertTrue(ThreadLauncher.system.start(name: "test") { ran.signal() })
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
    }

    func testARefusingLauncherStartsOnlyTheAllowedThreads() {
        let launcher = ThreadLauncher.refusing(after: 1)
        let ran = DispatchSemaphore(value: 0)
        XCTAssertTrue(launcher.start(name: "test") { ran.signal() })
        XCTAssertFalse(launcher.start(name: "test") { XCTFail("a refused thread ran") })
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
    }

    func testParallelLoopRunsEveryIndexOnTheThreadsItGot() {
        for (allowed, expected) in [(0, 1), (2, 3), (100, 8)] {
            let seen = LockedBox([Int]())
            let threads = ParallelLoop.run(count: 40, jobs: 8, launcher: .refusing(after: allowed)) { index in
                seen.update { $0.append(index) }
            }
            XCTAssertEqual(threads, expected, "\(allowed) threads allowed")
            XCTAssertEqual(seen.current.sorted(), Array(0..<40))
        }
    }

    func testBackgroundSyncerSyncsOnTheCallerWithoutThreads() throws {
        let folder = NSTemporaryDirectory() + "launcher-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let syncer = BackgroundSyncer(launcher: .refusing(after: 0))
        let files = (0..<5).map { open(folder + "/\($0)", O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        XCTAssertFalse(files.contains(-1))
        for fd in files { syncer.start(fd) }
        XCTAssertNil(syncer.finish(), "finish returns: nothing waits for a thread that never started")
        XCTAssertEqual(files.filter { fcntl($0, F_GETFD) != -1 }, [], "and closes what it synced")
        XCTAssertEqual(syncer.threadCounts.started, 0)
    }

    func testListPrefetcherReadsOnTheCallerWithoutItsThread() throws {
        let list = NSTemporaryDirectory() + "launcher-list-" + UUID().uuidString
        try "http://127.0.0.1/a.jpg\nnot a url\nhttp://127.0.0.1/b.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: list) }
        let prefetcher = ListPrefetcher(reader: URLListReader(paths: [list]), launcher: .refusing(after: 0)) {
            XCTFail("nothing is waited for, so nobody is woken")
        }
        var urls: [String] = [], invalid = 0
        loop: while true {
            switch prefetcher.poll() {
            case .entry(.url(let item)): urls.append(item.url)
            case .entry(.invalid): invalid += 1
            case .end: break loop
            case .waiting, .failed: return XCTFail("the list is read at once, without a thread")
            }
        }
        XCTAssertEqual(urls, ["http://127.0.0.1/a.jpg", "http://127.0.0.1/b.jpg"])
        XCTAssertEqual(invalid, 1)
    }

    func testThumbnailsAreMadeOnTheCallerWithoutWorkers() throws {
        let library = try TestLibrary(self)
        let photo = "originals/2024/05/01/IMG_0001.jpg"
        try ImageFixtures.rotatedJPEG(at: try library.prepare(photo))
        try library.add(photo)
        let updater = ThumbnailUpdater(libraryRoot: library.root, catalog: library.catalog,
                                       options: ThumbnailOptions(sizes: [.init(width: 64, height: 64)], jobs: 4))
        updater.engine.launcher = .refusing(after: 0)
        let summary = try updater.run(prune: false)
        XCTAssertEqual(summary.made, 1)
        XCTAssertEqual(summary.failed, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: library.root + "/thumbnails/64/2024/05/01/IMG_0001.jpg.jpg"))
    }

    func testAThreadRefusedInsideLibvipsIsNotBlamedOnTheFile() {
        let reason = "glib: Error creating thread: Resource temporarily unavailable"
        let message = ThumbnailError.decodeFailed(path: "originals/a.jpg", reason: reason).description
        XCTAssertTrue(message.hasPrefix("originals/a.jpg: libvips could not start a thread (\(reason))"), message)
        XCTAssertTrue(message.contains("fewer --jobs"), message)
        XCTAssertFalse(message.contains("corrupt"), message)
        XCTAssertTrue(ThumbnailError.decodeFailed(path: "a.jpg", reason: "not a JPEG").description.contains("corrupt"))
    }
}
