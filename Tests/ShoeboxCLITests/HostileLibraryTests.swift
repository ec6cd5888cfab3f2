import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// A library whose folders were tampered with: shoebox never writes through a
/// symbolic link inside it, so nothing lands outside the library.
final class HostileLibraryTests: XCTestCase {
    func testASymbolicLinkInsideTheLibraryIsNeverWrittenThrough() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let outside = try makeTemporaryDirectory(self)
        let year = runner.library.appendingPathComponent("originals/2020")
        try FileManager.default.createDirectory(at: year.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: year, withDestinationURL: outside)
        let url = server.url("/photo/linked.jpg?seed=linked&date=2020:01:02%2003:04:05")
        let output = try runner.fetch([url])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], "written through the link, outside the library")
        XCTAssertTrue(output.stderr.contains("originals/2020 is a symbolic link inside the library"), output.stderr)
        XCTAssertEqual(output.outcome(url), "stored", "recorded, its bytes kept staged for the next run")
        // With a real folder in place of the link, the next run finishes the original.
        try FileManager.default.removeItem(at: year)
        XCTAssertEqual(try runner.fetch([url]).outcome(url), "skipped")
        let stored = try runner.contents(of: "originals/2020/01/02/linked.jpg")
        XCTAssertEqual(stored, try server.get("/photo/linked.jpg?seed=linked&date=2020:01:02%2003:04:05"))
        try runner.assertConsistent()
    }

    /// A link planted where a new original's name would go, dangling or not: the name counts as
    /// taken (it did not while the link pointed nowhere: the original was recorded at that
    /// name, and every run's publish failed on the link), and nothing is written through it.
    func testALinkAtTheNameANewOriginalWouldGetIsPassedOver() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let outside = try makeTemporaryDirectory(self)
        let folder = runner.library.appendingPathComponent("originals/2022/03/04")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let victim = outside.appendingPathComponent("victim")
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("planted.jpg"), withDestinationURL: victim)
        let kept = outside.appendingPathComponent("kept")
        try Data("kept".utf8).write(to: kept)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("planted-2.jpg"), withDestinationURL: kept)
        let path = "/photo/planted.jpg?seed=planted&date=2022:03:04%2005:06:07"
        let url = server.url(path)
        let output = try runner.fetch([url])
        XCTAssertEqual(output.outcome(url), "stored", output.stderr)
        XCTAssertFalse(output.stderr.contains("not yet"), output.stderr)
        XCTAssertEqual(try runner.contents(of: "originals/2022/03/04/planted-3.jpg"), try server.get(path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: victim.path), "written through the dangling link")
        XCTAssertEqual(try String(contentsOf: kept, encoding: .utf8), "kept")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("planted.jpg").path), victim.path)
    }

    /// An original replaced by a dangling link: when its bytes come again (another URL), the
    /// link is set aside like any damaged file and the original put back (before, the link
    /// looked like no file at all, and the put-back failed on it every run).
    func testALinkInPlaceOfAnOriginalIsSetAsideWhenItsBytesComeAgain() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let path = "/photo/again.jpg?seed=again&date=2022:03:04%2005:06:07"
        let first = server.url(path)
        XCTAssertEqual(try runner.fetch([first]).outcome(first), "stored")
        let folder = runner.library.appendingPathComponent("originals/2022/03/04")
        let original = folder.appendingPathComponent("again.jpg")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try FileManager.default.removeItem(at: original)
        let nowhere = try makeTemporaryDirectory(self).appendingPathComponent("nowhere")
        try FileManager.default.createSymbolicLink(at: original, withDestinationURL: nowhere)
        let second = server.url(path + "&another=url")
        XCTAssertEqual(try server.get(path + "&another=url"), try server.get(path), "the fixture gives the same bytes")
        let output = try runner.fetch([second])
        XCTAssertEqual(output.outcome(second), "duplicate", output.stderr)
        XCTAssertFalse(output.stderr.contains("not yet"), output.stderr)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: original.path)[.type] as? FileAttributeType, .typeRegular)
        XCTAssertEqual(try runner.contents(of: "originals/2022/03/04/again.jpg"), try server.get(path))
        let damaged = runner.library.appendingPathComponent("damaged")
        let kept = (FileManager.default.enumerator(atPath: damaged.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix("again.jpg") }
        XCTAssertEqual(kept.count, 1, "the link kept aside: \(kept)")
        if let aside = kept.first {
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: damaged.appendingPathComponent(aside).path), nowhere.path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: nowhere.path), "written through the link")
        try runner.assertConsistent()
    }

    func testALinkedOriginalsFolderIsRefusedToo() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let outside = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: runner.library, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: runner.library.appendingPathComponent("originals"), withDestinationURL: outside)
        let url = server.url("/photo/linked2.jpg?seed=linked2&date=2021:01:02%2003:04:05")
        let output = try runner.fetch([url])
        XCTAssertTrue(output.stderr.contains("originals is a symbolic link inside the library"), output.stderr)
        let leaked = FileManager.default.enumerator(atPath: outside.path)?.allObjects as? [String] ?? []
        XCTAssertFalse(leaked.contains { $0.hasSuffix(".jpg") }, "\(leaked)")
    }
}
