import Foundation
import ShoeboxTestSupport
@testable import ShoeboxKit
import XCTest

/// Issue 5: after deleting catalog.sqlite, `shoebox reindex` gives back the same
/// originals, sources, ETags and metadata as the fetch recorded (compared as dumps),
/// and `fetch --refresh` can revalidate with the restored ETags.
final class ReindexAfterFetchTests: XCTestCase {
    private func dump(_ library: String) throws -> ([OriginalRecord], [SourceRecord]) {
        let catalog = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true)
        defer { catalog.close() }
        return (try catalog.allOriginals(), try catalog.allSources())
    }

    func testDeletedCatalogIsRebuiltWithTheSameOriginalsSourcesETagsAndMetadata() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let lm = "Wed,%2001%20May%202024%2010:00:00%20GMT"
        let queries = (0..<8).map {
            "seed=s\($0)&etag=e\($0)&lm=\(lm)&date=2024:05:0\($0 + 1)%2012:00:00"
                + "&make=Canon&model=EOS%20R\($0)&lat=\(48 + $0).5&lon=-\(2 + $0).25&alt=\(30 + $0)"
        }
        var urls = queries.enumerated().map { server.url("/photo/trip-\($0.offset)?" + $0.element) }
        urls.append(server.url("/photo/again?" + queries[0]))           // same bytes as trip-0: duplicate
        urls.append(server.url("/photo/undated?seed=u&lm=\(lm)"))       // dated by Last-Modified
        urls.append(server.url("/status/404"))                           // failed
        urls.append(server.url("/html"))                                 // rejected
        let first = try runner.fetch(urls)
        XCTAssertEqual(first.status, 1, first.stderr)
        let library = runner.library.path
        let before = try dump(library)
        XCTAssertEqual(before.0.count, 9)
        XCTAssertEqual(before.1.count, 12)
        XCTAssertTrue(before.1.contains { $0.etag == "\"e3\"" })
        XCTAssertTrue(before.0.contains { $0.gpsLatitude != nil && $0.make == "Canon" })

        for suffix in ["", "-wal", "-shm"] { unlink(library + "/catalog.sqlite" + suffix) }
        let reindex = try ShoeboxProcess.run(["reindex", "--library", library])
        XCTAssertEqual(reindex.status, 0, reindex.stderr)
        XCTAssertTrue(reindex.stdout.contains("originals: 9 (9 from the journal, 0 recorded"), reindex.stdout)
        let after = try dump(library)
        XCTAssertEqual(after.0, before.0)
        XCTAssertEqual(after.1, before.1)
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library]).status, 0)
        let json = try ShoeboxProcess.run(["reindex", "--library", library, "--force", "--json"])
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(report["originals_from_journal"] as? Int, 9, "snake_case keys, as fetch --json: \(report.keys.sorted())")
        XCTAssertEqual(report["previous_catalog_state"] as? String, "replaced")

        let refresh = try runner.fetch(Array(urls.prefix(8)), ["--refresh"])
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        XCTAssertEqual(refresh.records.compactMap { $0["outcome"] as? String }, Array(repeating: "unchanged", count: 8),
                       "the restored ETags revalidate with 304")
    }

    /// A library whose catalog and journal were written before lenses were recorded (schema 4):
    /// list --lens says it cannot judge those originals; reindex reads their lenses from the
    /// files; then the filter finds them.
    func testReindexReadsTheLensesOfOriginalsCataloguedBeforeLensesWere() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let urls = [server.url("/photo/l1?seed=l1&date=2024:01:01%2010:00:00&lens=EF70-200mm%20f%2F2.8L%20IS%20III%20USM"),
                    server.url("/photo/l2?seed=l2&date=2024:01:02%2010:00:00")]
        XCTAssertEqual(try runner.fetch(urls).status, 0)
        let library = runner.library.path
        let catalogPath = library + "/catalog.sqlite"
        do {
            let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
            try raw.execute("DROP INDEX originals_lens_unknown")
            try raw.execute("ALTER TABLE originals DROP COLUMN lens")
            try raw.execute("ALTER TABLE originals DROP COLUMN exposure")
            try raw.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
            raw.close()
        }
        let journal = library + "/journal.jsonl"
        let lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n").map { line -> String in
            func strip(_ value: Any) -> Any {
                if let object = value as? [String: Any] { return object.filter { $0.key != "lens" && $0.key != "exposure" }.mapValues(strip) }
                if let array = value as? [Any] { return array.map(strip) }
                return value
            }
            let object = strip(try JSONSerialization.jsonObject(with: Data(line.utf8)))
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        XCTAssertFalse(lines.joined().contains("\"lens\":"))
        try (lines.joined(separator: "\n") + "\n").write(toFile: journal, atomically: true, encoding: .utf8)

        let before = try ShoeboxProcess.run(["list", "--library", library, "--paths", "--lens", "70-200"])
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertEqual(before.stdout, "")
        XCTAssertTrue(before.stderr.contains("list: 2 originals matching the other filters were catalogued before shoebox recorded lenses"),
                      before.stderr)
        let reindex = try ShoeboxProcess.run(["reindex", "--library", library, "--force"])
        XCTAssertEqual(reindex.status, 0, reindex.stdout + reindex.stderr)
        let after = try ShoeboxProcess.run(["list", "--library", library, "--json", "--lens", "70-200"])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(FetchRunner.parseLines(after.stdout).compactMap { $0["lens"] as? String }, ["EF70-200mm f/2.8L IS III USM"])
        XCTAssertEqual(after.stderr, "", "every lens is known now")
        let catalog = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertEqual(try catalog.allOriginals().map(\.lens).sorted { ($0 ?? "-") < ($1 ?? "-") }, ["", "EF70-200mm f/2.8L IS III USM"],
                       "no lens in the file: known, empty")
        XCTAssertEqual(try catalog.allOriginals().compactMap(\.exposure).count, 2, "exposures read from the files too")
        catalog.close()
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library]).status, 0)
    }

    func testThumbnailRowsComeBackAfterReindex() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let urls = (0..<3).map { server.url("/photo/t\($0)?seed=t\($0)&date=2023:03:0\($0 + 1)%2010:00:00") }
        XCTAssertEqual(try runner.fetch(urls).status, 0)
        let library = runner.library.path
        XCTAssertEqual(try ShoeboxProcess.run(["thumbs", "--library", library, "--size", "64,32"]).status, 0)
        let catalogPath = library + "/catalog.sqlite"
        let before = try SQLiteCatalog(path: catalogPath, readOnly: true).allThumbnails()
        XCTAssertEqual(before.count, 6)

        for suffix in ["", "-wal", "-shm"] { unlink(catalogPath + suffix) }
        XCTAssertEqual(try ShoeboxProcess.run(["reindex", "--library", library]).status, 0)
        XCTAssertEqual(try SQLiteCatalog(path: catalogPath, readOnly: true).allThumbnails(), before)
    }
}
