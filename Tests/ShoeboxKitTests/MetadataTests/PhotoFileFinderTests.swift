import Foundation
import XCTest
@testable import ShoeboxKit

final class PhotoFileFinderTests: XCTestCase {
    func testRecursesInPathOrderSkippingHiddenAndNonPhotosAndLinkCycles() throws {
        let root = try makeTemporaryDirectory(self)
        let files = FileManager.default
        try files.createDirectory(at: root.appendingPathComponent("b/c"), withIntermediateDirectories: true)
        try files.createDirectory(at: root.appendingPathComponent(".cache"), withIntermediateDirectories: true)
        for name in ["b/2.jpg", "a.JPG", "b/c/1.heic", ".cache/x.jpg", "b/.hidden.png", "notes.txt"] {
            try Data("x".utf8).write(to: root.appendingPathComponent(name))
        }
        // No photo extension, but PNG bytes: found by its first bytes.
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: root.appendingPathComponent("b/download"))
        try files.createSymbolicLink(atPath: root.appendingPathComponent("b/c/loop").path, withDestinationPath: root.path)
        // Not folders that cannot be read: a link to itself (ELOOP) and one to nothing.
        try files.createSymbolicLink(atPath: root.appendingPathComponent("b/self").path, withDestinationPath: "self")
        try files.createSymbolicLink(atPath: root.appendingPathComponent("b/gone.jpg").path, withDestinationPath: "nowhere.jpg")
        let found = PhotoFileFinder.expand([root.path + "/", root.appendingPathComponent("missing.jpg").path])
        XCTAssertEqual(found.unreadableFolders, [])
        XCTAssertEqual(found.paths, [
            root.path + "/a.JPG", root.path + "/b/2.jpg", root.path + "/b/c/1.heic", root.path + "/b/download",
            root.appendingPathComponent("missing.jpg").path,
        ])
    }

    /// Before, a FIFO without a photo extension was opened to sniff its first bytes, and the
    /// walk waited for a writer for good.
    func testAFolderWalkSkipsFIFOsWithoutWaitingForThem() throws {
        let root = try makeTemporaryDirectory(self)
        XCTAssertEqual(mkfifo(root.appendingPathComponent("pipe").path, 0o644), 0)
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: root.appendingPathComponent("a.png"))
        let done = DispatchSemaphore(value: 0)
        let found = LockedBox<[String]?>(nil)
        Thread.detachNewThread {
            found.update { $0 = PhotoFileFinder.expand([root.path]).paths }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else {
            // Let a walk stuck in the FIFO's open go on: a writer ends its wait (without
            // waiting itself when nothing reads: ENXIO).
            let writer = open(root.appendingPathComponent("pipe").path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            return XCTFail("the walk waited on the FIFO")
        }
        XCTAssertEqual(found.current, [root.path + "/a.png"])
    }
}
