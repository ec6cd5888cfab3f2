import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// `shoebox export`: a selection copied out with a manifest, checked against the catalog.
final class ExportCommandTests: XCTestCase {
    private var server: FixtureServer!
    private var runner: FetchRunner!
    private var out: URL { runner.workDirectory.appendingPathComponent("handover") }

    override func setUpWithError() throws {
        server = try startFixtureServer()
        runner = try FetchRunner(self)
    }

    override func tearDown() { server.stop() }

    private func export(_ extra: [String]) throws -> (status: Int32, lines: [[String: Any]], stderr: String) {
        let result = try ShoeboxProcess.run(["export", "--library", runner.library.path, "--to", out.path, "--json"] + extra)
        return (result.status, FetchRunner.parseLines(result.stdout), result.stderr)
    }

    private func fetchThree() throws -> [String: Data] {
        var bytes: [String: Data] = [:]
        for (name, date) in [("old", "2019:01:02%2003:04:05"), ("mid", "2021:06:07%2008:09:10"), ("new", "2023:11:12%2013:14:15")] {
            let path = "/photo/\(name).jpg?seed=\(name)&date=\(date)"
            bytes[name] = try server.get(path)
            XCTAssertEqual(try runner.fetch([server.url(path)]).status, 0)
        }
        return bytes
    }

    func testTheSelectionIsCopiedWithAManifestThatChecksAndARerunAddsOnlyWhatIsNew() throws {
        let bytes = try fetchThree()
        let first = try export(["--since", "2021"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.lines.compactMap { $0["path"] as? String }.sorted(), ["2021/06/07/mid.jpg", "2023/11/12/new.jpg"])
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("2021/06/07/mid.jpg")), bytes["mid"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("2019/01/02/old.jpg").path))
        // The manifest is sha256sum's: it checks.
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        check.arguments = ["--check", "--quiet", "manifest.sha256"]
        check.currentDirectoryURL = out
        try check.run()
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 0)
        let records = FetchRunner.parseLines(try String(contentsOf: out.appendingPathComponent("manifest.jsonl"), encoding: .utf8))
        XCTAssertEqual(records.count, 2)
        XCTAssertEqual((records.first?["sources"] as? [[String: Any]])?.first?["url"] as? String,
                       server.url("/photo/mid.jpg?seed=mid&date=2021:06:07%2008:09:10"))
        // Again, everything: the two are there already; the manifest gains the third.
        let second = try export([])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.lines.filter { $0["outcome"] as? String == "unchanged" }.count, 2)
        XCTAssertEqual(second.lines.filter { $0["outcome"] as? String == "exported" }.count, 1)
        let manifest = try String(contentsOf: out.appendingPathComponent("manifest.sha256"), encoding: .utf8)
        XCTAssertEqual(manifest.split(separator: "\n").count, 3)
    }

    func testADamagedOriginalIsNeverExportedAndOtherBytesInTheFolderAreNeverReplaced() throws {
        _ = try fetchThree()
        let damaged = runner.library.appendingPathComponent("originals/2019/01/02/old.jpg").path
        chmod(damaged, 0o644)
        try Data(repeating: 9, count: 500).write(to: URL(fileURLWithPath: damaged))
        let inTheWay = out.appendingPathComponent("2023/11/12/new.jpg")
        try FileManager.default.createDirectory(at: inTheWay.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("someone's file".utf8).write(to: inTheWay)
        let run = try export([])
        XCTAssertEqual(run.status, 1)
        func reason(_ path: String) -> String { run.lines.first { $0["path"] as? String == path }?["reason"] as? String ?? "" }
        XCTAssertTrue(reason("2019/01/02/old.jpg").contains("verify --repair"), "\(run.lines)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("2019/01/02/old.jpg").path))
        XCTAssertTrue(reason("2023/11/12/new.jpg").contains("holds other bytes"))
        XCTAssertEqual(try String(contentsOf: inTheWay, encoding: .utf8), "someone's file")
        let leftovers = (FileManager.default.enumerator(atPath: out.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".part") }
        XCTAssertEqual(leftovers, [])
    }

    /// The lens fetch read from the file selects and is written to the manifest; a killed
    /// export's temporary files are removed by the next one (only those: a look-alike name,
    /// a link to another folder, are left); two exports into one folder cannot run at once.
    func testLensSelectsAKilledExportsLeftoversGoAndOneExportAtATime() throws {
        let lensed = "/photo/lens.jpg?seed=lens&date=2022:02:03%2004:05:06&lens=EF24-105mm%20f%2F4L%20IS%20USM"
        XCTAssertEqual(try runner.fetch([server.url(lensed), server.url("/photo/plain.jpg?seed=plain&date=2022:02:03%2004:05:07")]).status, 0)
        let day = out.appendingPathComponent("2022/02/03")
        try FileManager.default.createDirectory(at: day, withIntermediateDirectories: true)
        let leftover = day.appendingPathComponent(".shoebox-export-0f6a.part")
        let lookAlike = day.appendingPathComponent(".shoebox-export-0f6a.part.keep")
        try Data("half a photo".utf8).write(to: leftover)
        try Data("mine".utf8).write(to: lookAlike)
        let elsewhere = runner.workDirectory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try Data("not the export's".utf8).write(to: elsewhere.appendingPathComponent(".shoebox-export-1.part"))
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("link"), withDestinationURL: elsewhere)

        // Another export holds the folder: refused with status 3, nothing removed.
        let holder = open(out.path, O_RDONLY | O_DIRECTORY)
        XCTAssertEqual(flock(holder, LOCK_EX | LOCK_NB), 0)
        let busy = try export(["--lens", "24-105"])
        XCTAssertEqual(busy.status, 3, busy.stderr)
        XCTAssertTrue(busy.stderr.contains("another shoebox export into"), busy.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: leftover.path))
        close(holder)

        let run = try export(["--lens", "24-105"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines.compactMap { $0["path"] as? String }, ["2022/02/03/lens.jpg"])
        XCTAssertEqual(run.stderr.contains("before shoebox recorded lenses"), false, "every lens is known: \(run.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path), "the killed export's temporary file is gone")
        XCTAssertEqual(try String(contentsOf: lookAlike, encoding: .utf8), "mine")
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent(".shoebox-export-1.part").path),
                      "a link is not followed")
        let records = FetchRunner.parseLines(try String(contentsOf: out.appendingPathComponent("manifest.jsonl"), encoding: .utf8))
        XCTAssertEqual(records.first?["lens"] as? String, "EF24-105mm f/4L IS USM")
        let listed = try ShoeboxProcess.run(["list", "--library", runner.library.path, "--json", "--lens", "f/4l"])
        XCTAssertEqual(FetchRunner.parseLines(listed.stdout).compactMap { $0["lens"] as? String }, ["EF24-105mm f/4L IS USM"])
    }

    func testLinkSharesTheOriginalAndAFolderInsideTheLibraryIsRefused() throws {
        _ = try fetchThree()
        let linked = try export(["--link", "--make", "TestCam"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        var original = stat(), copy = stat()
        stat(runner.library.appendingPathComponent("originals/2021/06/07/mid.jpg").path, &original)
        stat(out.appendingPathComponent("2021/06/07/mid.jpg").path, &copy)
        XCTAssertEqual(original.st_ino, copy.st_ino)
        let inside = try ShoeboxProcess.run(["export", "--library", runner.library.path, "--to", runner.library.appendingPathComponent("x").path])
        XCTAssertEqual(inside.status, 2)
        XCTAssertTrue(inside.stderr.contains("inside the library"), inside.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: runner.library.appendingPathComponent("x").path), "nothing made in the library")
        let noFolder = try ShoeboxProcess.run(["export", "--library", runner.library.path])
        XCTAssertEqual(noFolder.status, 2)
    }
}

