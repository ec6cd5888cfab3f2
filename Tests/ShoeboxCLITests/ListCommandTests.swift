import Foundation
@testable import ShoeboxCLI
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// `shoebox list` run as a user runs it, on a library whose catalog holds odd values (no
/// capture date, a position at 0,0, a date before 1970, a name with a line break): the
/// table on a pipe, --json, --paths and -0, the filters' errors, a reader that goes away,
/// and the same filters on a PostgreSQL catalog.
final class ListCommandTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private var library = ""

    override func setUpWithError() throws {
        library = NSTemporaryDirectory() + "list-command-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: library + "/originals", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: library)
    }

    static func hash(_ n: Int, filler: String = "b") -> String {
        let digits = String(n, radix: 16)
        return filler + String(repeating: "0", count: 63 - digits.count) + digits
    }

    static let records: [OriginalRecord] = [
        OriginalRecord(sha256: hash(1), path: "originals/1965/03/04/old.jpg", bytes: 300, contentType: "image/jpeg", width: 640,
                       height: 480, takenAt: "1965:03:04 10:00:00", datedBy: .exif, make: "Canon", model: "Canon EOS R5",
                       lens: "RF24-105mm F4 L IS USM", exposure: "t=0.004 f=4 iso=200", gpsLatitude: 0, gpsLongitude: 0, gpsAltitude: nil, orientation: 1, addedAt: "2026-12-01T10:00:00Z"),
        OriginalRecord(sha256: hash(2), path: "originals/undated/x.png", bytes: 200, contentType: "image/png",
                       addedAt: "2026-12-02T10:00:00Z"),
        OriginalRecord(sha256: hash(3), path: "originals/2024/05/01/two\nlines.jpg", bytes: 3_000_000, contentType: "image/jpeg",
                       width: 4000, height: 3000, takenAt: "2024:05:01 12:00:00", datedBy: .lastModified,
                       make: "NIKON CORPORATION", model: "NIKON D850", lens: "", gpsLatitude: 48.8584, gpsLongitude: 2.2945,
                       gpsAltitude: 35, orientation: 6, addedAt: "2026-12-02T11:00:00Z"),
    ]

    static let sources: [SourceRecord] = [
        SourceRecord(url: "https://photos.example.com/old.jpg", sha256: hash(1), fetchedAt: "2026-12-01T10:00:00Z", outcome: .stored),
        SourceRecord(url: "https://other.org/x.png", sha256: hash(2), fetchedAt: "2026-12-02T10:00:00Z", outcome: .stored),
    ]

    private func fill(_ catalog: Catalog, extra: Int = 0) throws {
        try catalog.transaction {
            for record in Self.records { try catalog.insertOriginal(record) }
            for source in Self.sources { try catalog.upsertSource(source) }
            for n in 0..<extra {
                try catalog.insertOriginal(OriginalRecord(
                    sha256: Self.hash(n, filler: "c"), path: "originals/2020/01/01/many-\(n).jpg", bytes: 1, contentType: "image/jpeg",
                    takenAt: "2020:01:01 00:00:00", addedAt: "2026-12-02T00:00:00Z"))
            }
        }
        catalog.close()
    }

    private func makeLibrary(extra: Int = 0) throws {
        try fill(try SQLiteCatalog(path: library + "/catalog.sqlite"), extra: extra)
    }

    private func list(_ arguments: [String]) throws -> ShoeboxProcess.Result {
        try ShoeboxProcess.run(["list", "-L", library] + arguments)
    }

    func testTableOnAPipeIsPlainUndatedLastAndLineBreaksEscaped() throws {
        try makeLibrary()
        let result = try ShoeboxProcess.run(["list", "-L", library], environment: ["NO_COLOR": ""])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "off a terminal, no count on stderr")
        XCTAssertFalse(result.stdout.contains("\u{1B}"), "no colour on a pipe, even without NO_COLOR")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, result.stdout)
        XCTAssertTrue(lines[0].hasPrefix("TAKEN "), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("1965-03-04 10:00:00  camera       Canon EOS R5 "), lines[1])
        XCTAssertTrue(lines[1].contains("0.00000,0.00000"), "0,0 is shown as a position: \(lines[1])")
        XCTAssertTrue(lines[2].hasPrefix("2024-05-01 12:00:00  server       NIKON D850 "), lines[2])
        XCTAssertTrue(lines[2].hasSuffix("originals/2024/05/01/two\\x0Alines.jpg"), "a line break in a name is shown, not printed: \(lines[2])")
        XCTAssertTrue(lines[3].hasPrefix("-                    -            -  "), lines[3])
        XCTAssertTrue(lines[3].hasSuffix("originals/undated/x.png"), lines[3])

        let none = try list(["--since", "2030"])
        XCTAssertEqual(none.status, 0, "nothing matching is no error")
        XCTAssertEqual(none.stdout.split(separator: "\n").count, 1, "the header only")
        XCTAssertEqual(none.stderr, "list: no original matches\n")
    }

    func testJSONHasFetchsMetadataKeysAndTheOriginalsOwn() throws {
        try makeLibrary()
        let result = try list(["--json", "--reverse"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let objects = try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(objects.compactMap { $0["path"] as? String },
                       ["originals/2024/05/01/two\nlines.jpg", "originals/1965/03/04/old.jpg", "originals/undated/x.png"])
        // The keys of fetch --json's metadata object, from the one encoder both use.
        var fetchResult = FetchResult(url: "http://h/x.jpg", origin: "list.txt:1", outcome: .stored)
        fetchResult.original = Self.records[0]
        let fetchLine = FetchResultJSON.line(for: fetchResult)
        let fetched = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(fetchLine.utf8)) as? [String: Any])
        let metadata = try XCTUnwrap(fetched["metadata"] as? [String: Any])
        XCTAssertEqual(Set(objects[1].keys), Set(metadata.keys).union(["path", "sha256", "bytes", "content_type", "added_at"]))
        XCTAssertEqual(objects[1]["taken_at"] as? String, metadata["taken_at"] as? String)
        let gps = try XCTUnwrap(objects[1]["gps"] as? [String: Any])
        XCTAssertEqual(gps["latitude"] as? Double, 0)
        XCTAssertEqual(gps["longitude"] as? Double, 0)
        XCTAssertTrue(objects[2]["taken_at"] is NSNull, "no date is null")
        XCTAssertTrue(objects[2]["gps"] is NSNull)
        XCTAssertEqual(objects[0]["bytes"] as? Int, 3_000_000)
        XCTAssertEqual(objects[0]["sha256"] as? String, Self.hash(3))
        XCTAssertEqual(objects[0]["dated_by"] as? String, "last-modified")
        XCTAssertEqual(objects[1]["lens"] as? String, "RF24-105mm F4 L IS USM")
        XCTAssertTrue(objects[0]["lens"] is NSNull, "no lens named is null")
        XCTAssertTrue(objects[2]["lens"] is NSNull, "a lens not known is null")
        let exposure = try XCTUnwrap(objects[1]["exposure"] as? [String: Any])
        XCTAssertEqual(exposure["exposure_time"] as? Double, 0.004)
        XCTAssertEqual(exposure["f_number"] as? Double, 4)
        XCTAssertEqual(exposure["iso"] as? Int, 200)
        XCTAssertTrue(exposure["focal_length"] is NSNull, "not named")
        XCTAssertTrue(objects[0]["exposure"] is NSNull, "not known")
    }

    func testEveryJSONKeyIsInTheManual() throws {
        let line = OriginalRecordJSON.listed(Self.records[0])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let manual = try XCTUnwrap(try ManualPage(path: ManualTool.path("man/shoebox.1")).options(of: "list").first { $0.long == "json" }).text
        let words = Set(manual.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
        XCTAssertEqual(object.count, 15)
        for key in object.keys.sorted() {
            XCTAssertTrue(words.contains(key), "list --json key '\(key)' is not in the manual's --json entry: \(manual)")
        }
    }

    func testPathsOneALineOrNULSeparated() throws {
        try makeLibrary()
        let lines = try list(["--paths", "--has-gps"])
        XCTAssertEqual(lines.status, 0, lines.stderr)
        XCTAssertEqual(lines.stdout, "\(library)/originals/1965/03/04/old.jpg\n\(library)/originals/2024/05/01/two\nlines.jpg\n")
        let nul = try list(["-0", "--sort", "path"])
        XCTAssertEqual(nul.status, 0, nul.stderr)
        XCTAssertEqual(nul.stdout.split(separator: "\0", omittingEmptySubsequences: false).map(String.init), [
            "\(library)/originals/1965/03/04/old.jpg", "\(library)/originals/2024/05/01/two\nlines.jpg",
            "\(library)/originals/undated/x.png", "",
        ], "-0 implies --paths; a name's line break survives")
        let s3 = try list(["--paths", "--store", "s3://photos/archive", "-n", "1"])
        XCTAssertEqual(s3.stdout, "s3://photos/archive/originals/1965/03/04/old.jpg\n", s3.stderr)
    }

    func testFiltersFromTheCommandLine() throws {
        try makeLibrary()
        func names(_ arguments: [String]) throws -> [String] {
            let result = try list(["--paths"] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "/").last ?? "") }
        }
        XCTAssertEqual(try names(["--until", "1969-12-31"]), ["old.jpg"], "before 1970")
        XCTAssertEqual(try names(["--no-gps"]), ["x.png"])
        XCTAssertEqual(try names(["--bbox", "-0.5,-0.5,0.5,0.5"]), ["old.jpg"], "the box around 0,0")
        XCTAssertEqual(try names(["--near", "48.85,2.29,2km", "-n", "5"]), ["two", "lines.jpg"], "one name on two lines")
        XCTAssertEqual(try names(["--make", "nikon", "--format", "jpg", "--format", "png"]), ["two", "lines.jpg"])
        XCTAssertEqual(try names(["--dated-by", "camera"]), ["old.jpg"])
        XCTAssertEqual(try names(["--host", "photos.example.com"]), ["old.jpg"])
        XCTAssertEqual(try names(["--url-prefix", "https://other.org/"]), ["x.png"])
        XCTAssertEqual(try names(["--added-since", "2026-12-02", "--sort", "added", "--reverse"]), ["two", "lines.jpg", "x.png"])
        XCTAssertEqual(try names(["--sort", "size", "--limit", "1"]), ["x.png"])
        XCTAssertEqual(try names(["--lens", "f4 l"]), ["old.jpg"])
    }

    /// An original catalogued before lenses were (lens not known) is never matched by --lens,
    /// and the user is told how many such originals the other filters leave.
    func testLensFilterSaysWhatItCouldNotJudge() throws {
        try makeLibrary(extra: 3)
        let matched = try list(["--paths", "--lens", "24-105"])
        XCTAssertEqual(matched.status, 0, matched.stderr)
        XCTAssertEqual(matched.stdout, "\(library)/originals/1965/03/04/old.jpg\n")
        XCTAssertEqual(matched.stderr, "list: 4 originals matching the other filters were catalogued before shoebox recorded lenses "
            + "and are not matched by --lens; 'shoebox reindex' reads their lenses from the files\n")
        let narrowed = try list(["--paths", "--lens", "24-105", "--format", "png"])
        XCTAssertEqual(narrowed.stdout, "")
        XCTAssertTrue(narrowed.stderr.hasPrefix("list: 1 original matching the other filters was catalogued"), narrowed.stderr)
        let judged = try list(["--paths", "--lens", "24-105", "--make", "canon"])
        XCTAssertEqual(judged.stderr, "", "every Canon's lens is known: nothing to say")
        XCTAssertEqual(try list(["--paths", "--lens", ""]).status, 2, "an empty lens is a usage error")
    }

    func testBadValuesAreUsageErrorsNamingThem() throws {
        try makeLibrary()
        let cases: [([String], String)] = [
            (["--since", "2024-13-01"], "--since 2024-13-01: not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS"),
            (["--until", "2024-02-30"], "--until 2024-02-30: not a date"),
            (["--since", "2024-06-01", "--until", "2024-05-31"], "--since 2024-06-01 is after --until 2024-05-31"),
            (["--bbox", "1,2,3"], "--bbox 1,2,3: not a box; use SOUTH,WEST,NORTH,EAST"),
            (["--near", "48,2"], "--near 48,2: not a place and distance"),
            (["--format", "docx"], "--format docx: not a format shoebox stores"),
            (["--dated-by", "gps"], "--dated-by gps: not a dating"),
            (["--host", "https://photos.example.com/"], "--host https://photos.example.com/: not a host name"),
            (["--sort", "colour"], "invalid value 'colour' for '--sort': expected one of taken, added, path, size"),
            (["--limit", "0"], "invalid value '0' for '--limit'"),
            (["--json", "--paths"], "--json and --paths"),
            (["--json", "-0"], "--json and --paths (or -0)"),
            (["--has-gps", "--no-gps"], "--has-gps and --no-gps"),
            (["--no-gps", "--near", "0,0,1km"], "--no-gps with --near"),
            (["--make", ""], "invalid value '' for '--make'"),
        ]
        for (arguments, message) in cases {
            let result = try list(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("list: " + message), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments): nothing on stdout")
        }
        let missing = try ShoeboxProcess.run(["list", "-L", library + "/nope"])
        XCTAssertEqual(missing.status, 4, missing.stderr)
    }

    /// `list --paths | head -1`: the reader goes away; list stops quietly with 141.
    func testReaderGoingAwayStopsTheListing() throws {
        try makeLibrary(extra: 20_000)
        let script = "\"$0\" list -L \"$1\" --paths | head -n 1; echo \"status ${PIPESTATUS[0]}\""
        let result = try ToolRun.bash(script, [ShoeboxProcess.executable.path, library])
        XCTAssertEqual(result.stdout, "\(library)/originals/1965/03/04/old.jpg\nstatus 141\n", result.stderr)
        XCTAssertEqual(result.stderr, "", "no error message for a reader that has read enough")
    }

    func testSharedPostgreSQLCatalog() throws {
        guard PostgresServer.isAvailable else { throw XCTSkip("PostgreSQL 15 is not installed (bash .ci/install-deps installs it)") }
        let uri = try Self.postgres.running().makeDatabase(icuLocale: "en-US")
        try fill(try PostgresCatalog(uri: uri))
        func run(_ arguments: [String]) throws -> ShoeboxProcess.Result {
            try ShoeboxProcess.run(["list", "--catalog", uri, "-L", library] + arguments)
        }
        let all = try run(["--paths", "--reverse"])
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertEqual(all.stdout, "\(library)/originals/2024/05/01/two\nlines.jpg\n\(library)/originals/1965/03/04/old.jpg\n\(library)/originals/undated/x.png\n")
        let filtered = try run(["--json", "--until", "1969", "--has-gps", "--make", "CANON", "--host", "photos.example.com"])
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertEqual(filtered.stdout.split(separator: "\n").count, 1, filtered.stdout)
        XCTAssertTrue(filtered.stdout.contains("\"path\":\"originals/1965/03/04/old.jpg\""), filtered.stdout)
        let near = try run(["--paths", "--near", "0,0,1m", "-n", "1"])
        XCTAssertEqual(near.stdout, "\(library)/originals/1965/03/04/old.jpg\n", near.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/catalog.sqlite"), "no SQLite catalog made beside it")
    }
}

/// A bash script run with arguments, its output captured.
private enum ToolRun {
    static func bash(_ script: String, _ arguments: [String]) throws -> ShoeboxProcess.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ShoeboxProcess.Result(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                                     stderr: String(decoding: errors, as: UTF8.self))
    }
}
