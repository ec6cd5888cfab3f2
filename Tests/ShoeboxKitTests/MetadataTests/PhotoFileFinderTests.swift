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
        let found = PhotoFileFinder.expand([root.path + "/", root.appendingPathComponent("missing.jpg").path])
        XCTAssertEqual(found, [
            root.path + "/a.JPG", root.path + "/b/2.jpg", root.path + "/b/c/1.heic", root.path + "/b/download",
            root.appendingPathComponent("missing.jpg").path,
        ])
    }
}
