import Foundation
import XCTest
@testable import ShoeboxKit

final class AtomicFileWriterTests: XCTestCase {
    func testFoldersAreMadeAndAFileInTheWayIsNamedWithTheSystemsReason() throws {
        let root = try makeTemporaryDirectory(self).path
        try AtomicFileWriter.createFolders(root + "/a/b/c")
        try AtomicFileWriter.createFolders(root + "/a/b/c")  // already there: fine
        var isFolder: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/a/b/c", isDirectory: &isFolder) && isFolder.boolValue)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/a/file"))
        XCTAssertThrowsError(try AtomicFileWriter.createFolders(root + "/a/file/d")) { error in
            XCTAssertEqual(error as? POSIXFileError, POSIXFileError(path: root + "/a/file", operation: "creating folder", code: ENOTDIR))
        }
    }

    func testAWriteReplacesTheFileWholeAndLeavesNoTemporaryFile() throws {
        let root = try makeTemporaryDirectory(self).path
        let path = root + "/page.html"
        try AtomicFileWriter.write(Array("old".utf8), to: path, temporaryPrefix: ".tmp-")
        try AtomicFileWriter.write(Array("new content".utf8), to: path, temporaryPrefix: ".tmp-")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "new content")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), ["page.html"])
        XCTAssertThrowsError(try AtomicFileWriter.write([1], to: root + "/missing/page.html", temporaryPrefix: ".tmp-")) { error in
            let failure = error as? POSIXFileError
            XCTAssertEqual(failure?.path, root + "/missing/page.html")
            XCTAssertEqual(failure?.code, ENOENT)
            XCTAssertEqual(failure?.description, "writing \(root)/missing/page.html: No such file or directory")
        }
    }
}
