import Foundation
import ShoeboxTestSupport
import XCTest

/// `fetch --dry-run`: what would be fetched, skipped or refused, with no request made and
/// nothing written to the library (not even SQLite's -shm/-wal files).
final class FetchDryRunTests: XCTestCase {
    func testADryRunRequestsNothingAndLeavesTheLibraryByteForByte() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let archived = server.url("/photo/d1?seed=d1")
        let first = try runner.fetch([archived])
        let skipped = try XCTUnwrap(first.record(archived)?["path"] as? String, first.stderr)
        XCTAssertEqual(try server.requestTimes("d1").count, 1)
        let before = snapshotFiles(in: runner.library.path)

        let new = server.url("/photo/d2?seed=d2")
        let list = try runner.writeList([archived, new, "", "# a comment", new, "ftp://127.0.0.1/x.jpg", "nope"])
        let text = try ShoeboxProcess.run(["fetch", "--dry-run", "--library", runner.library.path, list.path])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout.split(separator: "\n").map(String.init), [
            "skip \(archived) (archived as \(skipped))",
            "fetch \(new)",
            "refuse \(list.path):5: listed before: fetched once (\(new))",
            "refuse \(list.path):6: unsupported scheme 'ftp': only http and https are fetched (ftp://127.0.0.1/x.jpg)",
            "refuse \(list.path):7: not an absolute URL (bad scheme) (nope)",
        ])
        XCTAssertTrue(text.stderr.contains("dry run: 5 lines: 1 to fetch, 1 to skip, 3 refused"), text.stderr)

        let json = try ShoeboxProcess.run(["fetch", "-n", "--json", "--library", runner.library.path, list.path])
        XCTAssertEqual(json.status, 0, json.stderr)
        let objects = FetchRunner.parseLines(json.stdout)
        XCTAssertEqual(objects.map { $0["action"] as? String }, ["skip", "fetch", "refuse", "refuse", "refuse"])
        XCTAssertEqual(objects.first?["path"] as? String, skipped)
        XCTAssertEqual(objects.last?["source"] as? String, "\(list.path):7")

        XCTAssertEqual(try server.requestTimes("d2"), [], "no request for the URL a fetch would make")
        XCTAssertEqual(try server.requestTimes("d1").count, 1, "only the real fetch asked for the archived one")
        let after = snapshotFiles(in: runner.library.path)
        XCTAssertEqual(Set(after.keys), Set(before.keys), "no file made (SQLite's -shm, -wal)")
        // SQLite's -shm is its shared-memory index of the WAL (no data; rebuilt by any reader):
        // a reader of a WAL database marks its reads there. Every other byte stays as it was.
        XCTAssertEqual(after.filter { $0.key != "catalog.sqlite-shm" }, before.filter { $0.key != "catalog.sqlite-shm" },
                       "the dry runs wrote nothing")
    }

    func testADryRunOnALibraryThatDoesNotExistCreatesNothing() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let result = try ShoeboxProcess.run(["fetch", "--dry-run", "--library", runner.library.path,
                                             "--url", server.url("/photo/d3?seed=d3"), "--url", "https://u:pw@127.0.0.1:9/a.jpg"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "fetch \(server.url("/photo/d3?seed=d3"))\nfetch https://u@127.0.0.1:9/a.jpg\n")
        XCTAssertFalse(result.stdout.contains("pw"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: runner.library.path), "no library created")
        XCTAssertEqual(try server.requestTimes("d3"), [])
    }

    /// A catalog whose WAL was folded in (its last connection closed): read as it is on disk,
    /// SQLite makes no -shm or -wal beside it, and every byte stays as it was.
    func testADryRunOfACheckpointedCatalogMakesNoFileBesideIt() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let archived = server.url("/photo/d4?seed=d4")
        let first = try runner.fetch([archived])
        let path = try XCTUnwrap(first.record(archived)?["path"] as? String)
        let fold = Process()
        fold.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        fold.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()",
                          runner.library.appendingPathComponent("catalog.sqlite").path]
        try fold.run()
        fold.waitUntilExit()
        let before = snapshotFiles(in: runner.library.path)
        XCTAssertNil(before["catalog.sqlite-wal"], "the WAL is folded in: \(before.keys.sorted())")
        let result = try ShoeboxProcess.run(["fetch", "-n", "--library", runner.library.path, "--url", archived])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "skip \(archived) (archived as \(path))\n", "read from the catalog file alone")
        XCTAssertEqual(snapshotFiles(in: runner.library.path), before, "no -shm, no -wal, no byte changed")
    }
}
