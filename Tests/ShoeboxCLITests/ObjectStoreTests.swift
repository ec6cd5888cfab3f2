import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// The shoebox binary with `--store s3://…` against a real S3 server (OpenStack Swift with s3api
/// on 127.0.0.1, one for the class) and the fixture HTTP server. Each test has a bucket of its own.
final class ObjectStoreTests: XCTestCase {
    static let fixture = SwiftS3Fixture()

    override class func setUp() {
        super.setUp()
        fixture.start()
    }

    override class func tearDown() {
        fixture.stop()
        super.tearDown()
    }

    private var s3: SwiftS3Server!
    private var client: S3Client!
    private var work: URL!
    private var library: String { work.appendingPathComponent("library").path }

    override func setUpWithError() throws {
        s3 = try Self.fixture.running()
        client = try Self.fixture.client()
        work = try makeTemporaryDirectory(self)
    }

    // MARK: Helpers

    /// A new bucket for the calling test.
    private func makeBucket() throws -> String {
        let name = "b-" + UUID().uuidString.lowercased().prefix(13)
        try s3.createBucket(name)
        return name
    }

    /// The AWS variables for the test server, with `overrides` ("" unsets one).
    private func awsEnvironment(_ overrides: [String: String] = [:]) -> [String: String] {
        var environment = [
            "AWS_ACCESS_KEY_ID": s3.accessKey, "AWS_SECRET_ACCESS_KEY": s3.secret,
            "AWS_ENDPOINT_URL": s3.endpoint, "AWS_ENDPOINT_URL_S3": "", "AWS_REGION": s3.region,
            "AWS_DEFAULT_REGION": "", "AWS_SESSION_TOKEN": "", "SHOEBOX_STORE": "",
        ]
        for (name, value) in overrides { environment[name] = value }
        return environment
    }

    /// Runs shoebox with the AWS variables; no output ever shows the secret or a signature.
    @discardableResult
    private func shoebox(_ arguments: [String], environment: [String: String] = [:],
                         file: StaticString = #filePath, line: UInt = #line) throws -> ShoeboxProcess.Result {
        let result = try ShoeboxProcess.run(arguments, environment: awsEnvironment(environment))
        assertNoSecrets(result.stdout + result.stderr, file: file, line: line)
        return result
    }

    private func assertNoSecrets(_ output: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(output.contains(s3.secret), "the secret key was printed: \(output)", file: file, line: line)
        XCTAssertFalse(output.contains("Signature="), "a signature was printed: \(output)", file: file, line: line)
    }

    private func writeList(_ urls: [String]) throws -> String {
        let list = work.appendingPathComponent("list-\(UUID().uuidString).txt")
        try (urls.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        return list.path
    }

    private func catalogOriginals() throws -> [OriginalRecord] {
        let catalog = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true)
        defer { catalog.close() }
        return try catalog.allOriginals()
    }

    /// Every object in `bucket` (all pages).
    private func objects(in bucket: String, prefix: String = "") throws -> [S3ObjectSummary] {
        var all: [S3ObjectSummary] = []
        var token: String?
        repeat {
            let page = try client.listObjectsV2(bucket: bucket, prefix: prefix, continuationToken: token)
            all += page.objects
            token = page.nextContinuationToken
        } while token != nil
        return all
    }

    private func sha256(_ data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalizeHex()
    }

    /// Files (not folders) under LIBRARY/originals/.
    private func localOriginals() -> [String] {
        let folder = library + "/originals"
        return (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: folder + "/" + $0, isDirectory: &isFolder)
            return !isFolder.boolValue
        }
    }

    /// Each catalogued original is one object at PREFIX/PATH whose bytes and x-amz-meta-sha256
    /// are the catalog's hash and whose Content-Type fits its extension; nothing else is in the
    /// bucket, no multipart upload is left, and no original is in the library folder.
    private func assertBucketMatchesCatalog(_ bucket: String, prefix: String,
                                            file: StaticString = #filePath, line: UInt = #line) throws -> [OriginalRecord] {
        let originals = try catalogOriginals()
        let keyPrefix = prefix.isEmpty ? "" : prefix + "/"
        for original in originals {
            let key = keyPrefix + original.path
            let info = try client.headObject(bucket: bucket, key: key)
            XCTAssertEqual(info.metadata["sha256"], original.sha256, key, file: file, line: line)
            XCTAssertEqual(info.size, original.bytes, key, file: file, line: line)
            let expectedType = original.path.hasSuffix(".png") ? "image/png" : "image/jpeg"
            XCTAssertEqual(info.contentType, expectedType, key, file: file, line: line)
            XCTAssertEqual(info.contentType, original.contentType, key, file: file, line: line)
            let hasher = SHA256Hasher()
            try client.getObject(bucket: bucket, key: key) { hasher.update($0) }
            XCTAssertEqual(hasher.finalizeHex(), original.sha256, "bytes of \(key)", file: file, line: line)
        }
        XCTAssertEqual(Set(try objects(in: bucket).map(\.key)).filter { !$0.hasPrefix(keyPrefix + "thumbnails/") },
                       Set(originals.map { keyPrefix + $0.path }),
                       "the bucket holds the catalogued originals (and their thumbnails) and nothing else", file: file, line: line)
        XCTAssertEqual(try client.listAllMultipartUploads(bucket: bucket), [], "no incomplete multipart upload",
                       file: file, line: line)
        XCTAssertEqual(localOriginals(), [], "no original in the library folder", file: file, line: line)
        return originals
    }

    /// Fetches `count` distinct photos into `store` (exit 0) and returns the catalog.
    private func fetchPhotos(_ count: Int, into store: String, server: FixtureServer, tag: String = "p",
                             file: StaticString = #filePath, line: UInt = #line) throws -> [OriginalRecord] {
        let urls = (0..<count).map { server.url("/photo/\(tag)\($0).jpg?seed=\(tag)-\($0)") }
        let fetch = try shoebox(["fetch", try writeList(urls), "--library", library, "--store", store], file: file, line: line)
        XCTAssertEqual(fetch.status, 0, fetch.stderr, file: file, line: line)
        let originals = try catalogOriginals()
        XCTAssertEqual(originals.count, count, file: file, line: line)
        return originals
    }

    // MARK: fetch

    func testFetchStoresEachOriginalOnceAsAnObjectAndARerunRequestsNothing() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/archive/2024"
        let urls = [
            server.url("/photo/a.jpg?seed=a"), server.url("/photo/b.jpg?seed=b&make=Canon"),
            server.url("/photo/dup1.jpg?seed=same"), server.url("/photo/dup2.jpg?seed=same"),
            server.url("/png/p1"), server.url("/html"), server.url("/status/404"),
        ]
        let list = try writeList(urls)
        let first = try shoebox(["fetch", list, "--json", "--library", library, "--store", store])
        XCTAssertEqual(first.status, 1, "the HTML page and the 404 fail: \(first.stderr)")
        let records = FetchRunner.parseLines(first.stdout)
        func outcome(_ url: String) -> String? { records.first { $0["url"] as? String == url }?["outcome"] as? String }
        XCTAssertEqual(outcome(urls[0]), "stored")
        XCTAssertEqual(outcome(urls[1]), "stored")
        XCTAssertEqual(Set([outcome(urls[2]), outcome(urls[3])]), ["stored", "duplicate"])
        XCTAssertEqual(outcome(urls[4]), "stored")
        XCTAssertNotEqual(outcome(urls[5]), "stored")
        XCTAssertNotEqual(outcome(urls[6]), "stored")

        let originals = try assertBucketMatchesCatalog(bucket, prefix: "archive/2024")
        XCTAssertEqual(originals.count, 4, "a, b, the duplicate once, the PNG")
        XCTAssertTrue(originals.allSatisfy { $0.path.hasPrefix("originals/") })
        let before = try objects(in: bucket)

        let second = try shoebox(["fetch", list, "--json", "--library", library, "--store", store])
        XCTAssertEqual(second.status, 1, "still only the deliberate failures: \(second.stderr)")
        let again = FetchRunner.parseLines(second.stdout)
        XCTAssertFalse(again.contains { $0["outcome"] as? String == "stored" }, second.stdout)
        for name in ["a.jpg", "b.jpg", "dup1.jpg", "dup2.jpg"] {
            XCTAssertEqual(try server.requestTimes(name).count, 1, "\(name) was requested again")
        }
        let after = try objects(in: bucket)
        XCTAssertEqual(after.map(\.key), before.map(\.key), "nothing new stored")
        XCTAssertEqual(after.map(\.etag), before.map(\.etag), "no object rewritten")
        _ = try assertBucketMatchesCatalog(bucket, prefix: "archive/2024")
    }

    /// With a shared catalog (PostgreSQL) and the originals in a bucket, no library folder is
    /// needed: two workers share the list, staging under TMPDIR; the catalog remembers the store;
    /// verify and reindex work from the bucket.
    func testTwoWorkersWithASharedCatalogAndABucketNeedNoLibraryFolder() throws {
        let postgres = try PostgresServer()
        defer { postgres.stop() }
        let uri = try postgres.makeDatabase()
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/shared"
        let names = (1...12).map { "w\($0)-" + UUID().uuidString.prefix(6).lowercased() }
        let list = try writeList(names.map { server.url("/photo/\($0).jpg?seed=\($0)&lens=XF16-55mmF2.8%20R%20LM%20WR") })
        let temporary = work.appendingPathComponent("tmp").path
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let environment = awsEnvironment(["SHOEBOX_CATALOG": uri, "TMPDIR": temporary])
        let workers = try (0..<2).map { _ in
            try ShoeboxProcess.start(["fetch", list, "--json", "--store", store, "-j", "4"], environment: environment)
        }
        let results = workers.map { ShoeboxProcess.waitCapturing($0.0, out: $0.1, err: $0.2) }
        for result in results {
            XCTAssertEqual(result.status, 0, result.stderr)
            assertNoSecrets(result.stdout + result.stderr)
        }
        let stored = results.flatMap { FetchRunner.parseLines($0.stdout) }.filter { $0["outcome"] as? String == "stored" }
        XCTAssertEqual(stored.count, 12, "each URL stored once, by one of the workers")
        for name in names { XCTAssertEqual(try server.requestTimes(name + ".jpg").count, 1, "\(name) requested twice") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: library), "no library folder was made")
        let catalog = try PostgresCatalog(uri: uri)
        defer { catalog.close() }
        let originals = try catalog.allOriginals()
        XCTAssertEqual(originals.count, 12)
        let keys = Set(try objects(in: bucket, prefix: "shared/originals/").map(\.key))
        XCTAssertEqual(keys, Set(originals.map { "shared/" + $0.path }), "one object per catalogued original, nothing else")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary + "/shoebox-work-\(getuid())/.tmp"), [],
                       "the workers' staging folders are gone")

        // The catalog remembers its store: no --store needed from now on.
        let verify = try shoebox(["verify"], environment: ["SHOEBOX_CATALOG": uri, "TMPDIR": temporary])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue((verify.stdout + verify.stderr).contains("12 originals checked"), verify.stdout + verify.stderr)
        // An object whose row is gone is adopted again by reindex, from the bucket.
        let dropped = try XCTUnwrap(originals.first)
        XCTAssertEqual(Set(originals.map(\.lens)), ["XF16-55mmF2.8 R LM WR"])
        _ = try postgres.psql("DELETE FROM sources WHERE sha256 = '\(dropped.sha256)'; DELETE FROM originals WHERE sha256 = '\(dropped.sha256)'",
                              database: String(uri.split(separator: "/").last ?? ""))
        // Rows as a version-4 writer left them: lens not known. Reindex reads it from the objects.
        _ = try postgres.psql("UPDATE originals SET lens = NULL", database: String(uri.split(separator: "/").last ?? ""))
        let reindex = try shoebox(["reindex"], environment: ["SHOEBOX_CATALOG": uri, "TMPDIR": temporary])
        XCTAssertEqual(reindex.status, 0, reindex.stderr)
        XCTAssertTrue(reindex.stdout.contains("11 catalogued already, 1 recorded"), reindex.stdout)
        XCTAssertEqual(try catalog.original(sha256: dropped.sha256)?.path, dropped.path)
        XCTAssertEqual(Set(try catalog.allOriginals().map(\.lens)), ["XF16-55mmF2.8 R LM WR"], "every lens known again")
    }

    func testTheStoreFromSHOEBOX_STOREWorksAsTheOption() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let urls = [server.url("/photo/e1.jpg?seed=e1"), server.url("/photo/e2.jpg?seed=e2")]
        let environment = ["SHOEBOX_STORE": "s3://\(bucket)/from-env"]
        let fetch = try shoebox(["fetch", try writeList(urls), "--library", library], environment: environment)
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let originals = try assertBucketMatchesCatalog(bucket, prefix: "from-env")
        XCTAssertEqual(originals.count, 2)
        let verify = try shoebox(["verify", "--library", library], environment: environment)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        // The library remembers its store: without the variable it is found again...
        XCTAssertEqual(try String(contentsOfFile: library + "/store", encoding: .utf8), "s3://\(bucket)/from-env\n")
        let remembered = try shoebox(["verify", "--library", library])
        XCTAssertEqual(remembered.status, 0, remembered.stdout + remembered.stderr)
        XCTAssertTrue(remembered.stderr.contains("2 originals checked"), remembered.stderr)
        // ...and another store is refused, as a usage error naming the one it keeps.
        let other = try shoebox(["reindex", "--library", library, "--force", "--store", "s3://\(bucket)/elsewhere"])
        XCTAssertEqual(other.status, 2, other.stdout + other.stderr)
        XCTAssertTrue(other.stderr.contains("keeps its originals in s3://\(bucket)/from-env"), other.stderr)
        XCTAssertEqual(try assertBucketMatchesCatalog(bucket, prefix: "from-env").count, 2, "the refused reindex changed nothing")
    }

    // MARK: verify

    func testVerifyReportsMissingReplacedAndResizedObjects() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/v"
        let originals = try fetchPhotos(3, into: store, server: server).sorted { $0.path < $1.path }
        let clean = try shoebox(["verify", "--library", library, "--store", store])
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
        let quickClean = try shoebox(["verify", "--quick", "--library", library, "--store", store])
        XCTAssertEqual(quickClean.status, 0, quickClean.stdout + quickClean.stderr)

        let deleted = originals[0], replaced = originals[1], resized = originals[2]
        try client.deleteObject(bucket: bucket, key: "v/" + deleted.path)
        // Other bytes of the same size, and other bytes of another size, both keeping the metadata.
        let sameSize = Data(repeating: 0x5A, count: Int(replaced.bytes))
        try client.putObject(bucket: bucket, key: "v/" + replaced.path, data: sameSize, contentType: "image/jpeg",
                             metadata: ["sha256": replaced.sha256])
        try client.putObject(bucket: bucket, key: "v/" + resized.path, data: Data(repeating: 1, count: 10),
                             contentType: "image/jpeg", metadata: ["sha256": resized.sha256])

        let full = try shoebox(["verify", "--library", library, "--store", store])
        XCTAssertEqual(full.status, 1, full.stderr)
        let lines = full.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("missing ") && $0.contains(deleted.path) }, full.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("hash-mismatch ") && $0.contains(replaced.path) }, full.stdout)
        XCTAssertTrue(lines.contains { ($0.hasPrefix("size-mismatch ") || $0.hasPrefix("hash-mismatch ")) && $0.contains(resized.path) },
                      full.stdout)

        let quick = try shoebox(["verify", "--quick", "--library", library, "--store", store])
        XCTAssertEqual(quick.status, 1, quick.stderr)
        let quickLines = quick.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(quickLines.contains { $0.hasPrefix("missing ") && $0.contains(deleted.path) }, quick.stdout)
        XCTAssertTrue(quickLines.contains { $0.hasPrefix("size-mismatch ") && $0.contains(resized.path) }, quick.stdout)
        XCTAssertFalse(quick.stdout.contains(replaced.path), "--quick compares sizes only: \(quick.stdout)")
    }

    // MARK: inspect, thumbs, gallery

    func testInspectReadsMetadataFromTheBucketAndNamesObjects() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/i"
        let url = server.url("/photo/cam.jpg?seed=cam&make=Fujifilm&model=X-T5&date=2023:07:14%2009:30:00")
        let fetch = try shoebox(["fetch", try writeList([url]), "--library", library, "--store", store])
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let original = try XCTUnwrap(try catalogOriginals().first)

        let inspect = try shoebox(["inspect", "--library", library, "--store", store, "--json"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(items.count, 1)
        let item = try XCTUnwrap(items.first)
        XCTAssertEqual(item["Make"] as? String, "Fujifilm")
        XCTAssertEqual(item["Model"] as? String, "X-T5")
        XCTAssertEqual(item["SourceFile"] as? String, "s3://\(bucket)/i/\(original.path)")
        XCTAssertFalse(inspect.stdout.contains(library + "/originals"), inspect.stdout)
    }

    /// With one machine too (a local catalog), thumbnails go into the bucket beside the originals
    /// and the gallery page with them; nothing of either is in the library folder.
    func testThumbsAndGalleryLiveInTheBucketBesideTheOriginals() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/g"
        let originals = try fetchPhotos(2, into: store, server: server)

        let thumbs = try shoebox(["thumbs", "--library", library, "--store", store, "--size", "64"])
        XCTAssertEqual(thumbs.status, 0, thumbs.stdout + thumbs.stderr)
        for original in originals {
            let key = "g/thumbnails/64/" + original.path.dropFirst("originals/".count) + ".jpg"
            var data = Data()
            try client.getObject(bucket: bucket, key: key) { data.append(contentsOf: $0) }
            XCTAssertEqual(Array(data.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG thumbnail at \(key)")
            XCTAssertEqual(try client.headObject(bucket: bucket, key: key).contentType, "image/jpeg")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/thumbnails"), "no thumbnail in the library folder")
        XCTAssertEqual(localOriginals(), [], "no original copied into the library folder")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("shoebox-original-") || $0.hasPrefix("shoebox-thumbs-") }
        XCTAssertEqual(leftovers, [], "temporary local copies are removed")
        let again = try shoebox(["thumbs", "--library", library, "--store", store, "--size", "64"])
        XCTAssertTrue(again.stderr.contains("2 up to date, 0 failed; 0 thumbnails made"), again.stderr)
        let verify = try shoebox(["verify", "--library", library, "--store", store])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)

        let gallery = try shoebox(["gallery", "--library", library, "--store", store])
        XCTAssertEqual(gallery.status, 0, gallery.stdout + gallery.stderr)
        XCTAssertEqual(gallery.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "s3://\(bucket)/g/gallery/index.html")
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/gallery"), "no page in the library folder")
        var page = ""
        for object in try objects(in: bucket, prefix: "g/gallery/months/") {
            var data = Data()
            try client.getObject(bucket: bucket, key: object.key) { data.append(contentsOf: $0) }
            page += String(decoding: data, as: UTF8.self)
        }
        for original in originals {
            let underOriginals = original.path.dropFirst("originals/".count)
            XCTAssertTrue(page.contains("../../thumbnails/64/" + underOriginals + ".jpg"), "image of \(original.path) in the page")
            XCTAssertTrue(page.contains("data-original=\"../../" + original.path + "\""), "link to \(original.path): \(page)")
        }
        XCTAssertEqual(page.components(separatedBy: "<img").count - 1, originals.count, page)
        // A rerun puts up nothing: every page is as it was.
        let rerun = try shoebox(["gallery", "--library", library, "--store", store, "--json"])
        let summary = try JSONSerialization.jsonObject(with: Data(rerun.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(summary?["files_written"] as? Int, 0, rerun.stdout + rerun.stderr)

        // --prune: a thumbnail of no catalogued original goes, the others stay.
        try client.putObject(bucket: bucket, key: "g/thumbnails/64/2023/01/01/stray.jpg.jpg", data: Data([0xFF, 0xD8, 0xFF]))
        let pruned = try shoebox(["thumbs", "--library", library, "--store", store, "--size", "64", "--prune"])
        XCTAssertEqual(pruned.status, 0, pruned.stderr)
        XCTAssertTrue(pruned.stderr.contains("1 pruned"), pruned.stderr)
        XCTAssertEqual(Set(try objects(in: bucket, prefix: "g/thumbnails/").map(\.key)),
                       Set(originals.map { "g/thumbnails/64/" + $0.path.dropFirst("originals/".count) + ".jpg" }))

        // An original gone from the bucket: its thumbnail is kept, and the error names the object.
        try client.deleteObject(bucket: bucket, key: "g/" + originals[0].path)
        let missing = try shoebox(["thumbs", "--library", library, "--store", store, "--size", "64", "--force"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("s3://\(bucket)/g/\(originals[0].path)"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("1 failed; 1 thumbnail made"), missing.stderr)
        XCTAssertTrue(try objects(in: bucket, prefix: "g/thumbnails/").map(\.key)
                        .contains("g/thumbnails/64/" + originals[0].path.dropFirst("originals/".count) + ".jpg"))
    }

    // MARK: reindex

    func testReindexAfterLosingTheCatalogRebuildsItFromTheBucket() throws {
        try checkReindex(removingJournal: false)
    }

    func testReindexAfterLosingCatalogAndJournalRebuildsThemFromTheBucket() throws {
        try checkReindex(removingJournal: true)
    }

    private func checkReindex(removingJournal: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/r"
        let originals = try fetchPhotos(3, into: store, server: server, file: file, line: line)
        let thumbs = try shoebox(["thumbs", "--library", library, "--store", store, "--size", "48"], file: file, line: line)
        XCTAssertEqual(thumbs.status, 0, thumbs.stderr, file: file, line: line)
        var removed = ["catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm"]
        if removingJournal { removed.append("journal.jsonl") }
        for name in removed { try? FileManager.default.removeItem(atPath: library + "/" + name) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/catalog.sqlite"), file: file, line: line)

        let reindex = try shoebox(["reindex", "--library", library, "--store", store], file: file, line: line)
        XCTAssertEqual(reindex.status, 0, reindex.stdout + reindex.stderr, file: file, line: line)
        let rebuilt = try catalogOriginals()
        XCTAssertEqual(Set(rebuilt.map(\.path)), Set(originals.map(\.path)), file: file, line: line)
        XCTAssertEqual(Set(rebuilt.map(\.sha256)), Set(originals.map(\.sha256)), file: file, line: line)
        let verify = try shoebox(["verify", "--library", library, "--store", store], file: file, line: line)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr, file: file, line: line)
        _ = try assertBucketMatchesCatalog(bucket, prefix: "r", file: file, line: line)
        // The journal kept the thumbnail rows, and their objects are in the bucket: nothing to remake.
        // Without it they are made again (the catalog cannot vouch for objects it has no row of).
        let again = try shoebox(["thumbs", "--library", library, "--store", store, "--size", "48"], file: file, line: line)
        XCTAssertTrue(again.stderr.contains(removingJournal ? "0 up to date, 0 failed; 3 thumbnails made" : "3 up to date, 0 failed; 0 thumbnails made"),
                      again.stderr, file: file, line: line)
    }

    // MARK: errors

    func testConfigurationAndConnectionErrorsExitWithClearMessages() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/e"
        let list = try writeList([server.url("/photo/err.jpg?seed=err")])
        let fetch = ["fetch", list, "--library", library]

        let wrongSecret = "wrong-secret-value-1234"
        let badSecret = try shoebox(fetch + ["--store", store], environment: ["AWS_SECRET_ACCESS_KEY": wrongSecret])
        XCTAssertEqual(badSecret.status, 4, badSecret.stderr)
        XCTAssertTrue(badSecret.stderr.contains("the secret key does not match AWS_ACCESS_KEY_ID"), badSecret.stderr)
        XCTAssertTrue(badSecret.stderr.contains("AWS_SECRET_ACCESS_KEY"), badSecret.stderr)
        XCTAssertFalse((badSecret.stdout + badSecret.stderr).contains(wrongSecret), badSecret.stderr)

        let noBucket = try shoebox(fetch + ["--store", "s3://no-such-bucket-here/e"])
        XCTAssertEqual(noBucket.status, 4, noBucket.stderr)
        XCTAssertTrue(noBucket.stderr.contains("no-such-bucket-here"), noBucket.stderr)

        let noKey = try shoebox(fetch + ["--store", store], environment: ["AWS_ACCESS_KEY_ID": ""])
        XCTAssertEqual(noKey.status, 2, noKey.stderr)
        XCTAssertTrue(noKey.stderr.contains("AWS_ACCESS_KEY_ID"), noKey.stderr)

        // A port nothing listens on: bound, then closed.
        let closedPort = try Self.freePort()
        let started = Date()
        let down = try shoebox(fetch + ["--store", store], environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:\(closedPort)"])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(down.status, 4, down.stderr)
        XCTAssertTrue(down.stderr.contains("127.0.0.1:\(closedPort)"), down.stderr)
        XCTAssertLessThan(elapsed, 10, "a refused connection fails fast")

        let ftp = try shoebox(fetch + ["--store", "ftp://x"])
        XCTAssertEqual(ftp.status, 2, ftp.stderr)
        XCTAssertTrue(ftp.stderr.contains("ftp://x"), ftp.stderr)

        // Nothing of these runs reached the bucket or the fixture server.
        XCTAssertEqual(try objects(in: bucket), [])
        XCTAssertEqual(try server.requestTimes("err.jpg").count, 0)
        // A reader with the wrong secret says so as well (its first request is a listing).
        let good = try shoebox(fetch + ["--store", store])
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(try objects(in: bucket).count, 1)
        let verify = try shoebox(["verify", "--library", library, "--store", store], environment: ["AWS_SECRET_ACCESS_KEY": wrongSecret])
        XCTAssertEqual(verify.status, 4, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stderr.contains("the secret key does not match"), verify.stderr)
        XCTAssertFalse((verify.stdout + verify.stderr).contains(wrongSecret))
    }

    /// A loopback port that was free a moment ago and is closed now.
    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXFileError(path: "socket", operation: "create", code: errno) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXFileError(path: "127.0.0.1", operation: "bind", code: errno) }
        return UInt16(bigEndian: address.sin_port)
    }

    // MARK: Large bodies stream into the bucket

    /// Incomplete multipart uploads and objects under the prefix's staging folder (`.tmp/`).
    private func stagingLeftovers(_ bucket: String, prefix: String) throws -> (uploads: [String], objects: [String]) {
        let staging = (prefix.isEmpty ? "" : prefix + "/") + ".tmp/"
        return (try client.listAllMultipartUploads(bucket: bucket, prefix: staging).map(\.key),
                try objects(in: bucket, prefix: staging).map(\.key))
    }

    /// A body larger than the library folder's whole file system is archived: it streams from the
    /// network into a multipart upload, and only its first 8 MiB ever touch the local disk.
    func testALargeBodyStreamsIntoTheBucketThroughALibraryFolderSmallerThanIt() throws {
        let disk = try SmallFilesystem(kilobytes: 20 << 10, test: self)  // two heads of 8 MiB at once, and the catalog
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/s"
        let library = disk.path + "/library"
        let big = server.url("/big/huge?size=40000001&cl=1")
        let chunked = server.url("/big/huge-chunked?size=30000001&cl=0")
        let small = server.url("/photo/small.jpg?seed=small")
        let fetch = try shoebox(["fetch", try writeList([big, chunked, small]), "--json", "--library", library, "--store", store])
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let records = FetchRunner.parseLines(fetch.stdout)
        for url in [big, chunked, small] {
            XCTAssertEqual(records.first { $0["url"] as? String == url }?["outcome"] as? String, "stored", url + fetch.stderr)
        }
        let catalog = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true)
        defer { catalog.close() }
        let originals = try catalog.allOriginals()
        XCTAssertEqual(Set(originals.map(\.bytes)).isSuperset(of: [40_000_001, 30_000_001]), true)
        for (url, size) in [(big, 40_000_001), (chunked, 30_000_001)] {
            let record = try XCTUnwrap(originals.first { $0.bytes == Int64(size) }, url)
            let expected = try server.get("/big/reference?size=\(size)&cl=1")
            XCTAssertEqual(sha256(expected), record.sha256, url)
            let info = try client.headObject(bucket: bucket, key: "s/" + record.path)
            XCTAssertEqual(info.metadata["sha256"], record.sha256)
            XCTAssertEqual(info.size, Int64(size))
            XCTAssertEqual(info.contentType, "image/jpeg")
            XCTAssertEqual(try client.getObject(bucket: bucket, key: "s/" + record.path), expected, "bytes of \(url)")
        }
        let leftovers = try stagingLeftovers(bucket, prefix: "s")
        XCTAssertEqual(leftovers.uploads, [], "no incomplete upload")
        XCTAssertEqual(leftovers.objects, [], "no staged object left")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: library + "/.tmp")) ?? [], [], "nothing left staged")
        let verify = try shoebox(["verify", "--library", library, "--store", store])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    /// Large bodies refused mid-stream (cut short, over --max-size without a length) or once
    /// whole (an HTML page sent as a JPEG), a large duplicate and a large body resumed after its
    /// connection broke: the bucket ends with the originals alone, no staged object and no
    /// incomplete upload.
    func testLargeBodiesThatFailOrRepeatLeaveNoUploadBehind() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/f"
        let cut = server.url("/big/cut?size=30000000&cl=1&cut=20000000")
        let oversize = server.url("/big/over?size=40000000&cl=0")
        let first = server.url("/big/first?size=20000000&cl=1")
        let again = server.url("/big/again?size=20000000&cl=1")  // the same bytes
        let resumed = server.url("/resumable/r?size=24000000")
        let page = server.url("/big/page?size=12000000&cl=1&html=1")  // checked once whole: HTML sent as a JPEG
        let fetch = try shoebox(["fetch", try writeList([cut, oversize, first, again, resumed, page]), "--json", "--retries", "1",
                                 "--max-size", "30M", "--jobs", "1", "--library", library, "--store", store])
        XCTAssertEqual(fetch.status, 1, fetch.stderr)
        let records = FetchRunner.parseLines(fetch.stdout)
        func outcome(_ url: String) -> String? { records.first { $0["url"] as? String == url }?["outcome"] as? String }
        XCTAssertEqual(outcome(cut), "failed", fetch.stdout)
        XCTAssertEqual(outcome(oversize), "rejected", fetch.stdout)
        XCTAssertEqual(outcome(first), "stored", fetch.stdout)
        XCTAssertEqual(outcome(again), "duplicate", fetch.stdout)
        XCTAssertEqual(outcome(resumed), "stored", fetch.stdout)
        XCTAssertEqual(outcome(page), "rejected", fetch.stdout)
        let requests = try JSONSerialization.jsonObject(with: server.get("/_requests/r")) as? [Any]
        XCTAssertEqual(requests?.count, 2, "the resumed body took two requests (the second for the rest)")
        let originals = try assertBucketMatchesCatalog(bucket, prefix: "f")
        XCTAssertEqual(originals.map(\.bytes).sorted(), [20_000_000, 24_000_000])
        let whole = try server.get("/resumable-whole/r?size=24000000")
        XCTAssertEqual(originals.first { $0.bytes == 24_000_000 }?.sha256, sha256(whole), "the resumed body is the whole one")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: library + "/.tmp")) ?? [], [], "nothing left staged")
    }

    // MARK: kill -9

    func testFetchKilledThreeTimesThenRerunLeavesBucketAndCatalogAgreeing() throws {
        let server = try startFixtureServer()
        let bucket = try makeBucket()
        let store = "s3://\(bucket)/k"
        // Small photos that take a moment each, and one body big enough for a multipart upload.
        var urls = (0..<24).map { server.url("/slow/k\($0).jpg?delay=0.05&seed=k\($0)") }
        urls.insert(server.url("/big/k-big?size=\((17 << 20) + 3)&cl=1"), at: 20)
        let list = try writeList(urls)
        let arguments = ["fetch", list, "--json", "--jobs", "2", "--library", library, "--store", store]

        // Moments: after 2 originals stored; after 4 more; while the big body streams into
        // its multipart upload (seen in the bucket, under the staging prefix: nothing of it is
        // catalogued yet).
        enum Moment { case stored(Int), multipartInProgress }
        var storedSoFar = 0
        for (round, moment) in [Moment.stored(2), .stored(4), .multipartInProgress].enumerated() {
            let (process, out, err) = try ShoeboxProcess.start(arguments, environment: awsEnvironment())
            var output = Data()
            switch moment {
            case .stored(let more):
                // Kill once `more` originals more were reported stored by this run.
                while FetchRunner.parseLines(String(decoding: output, as: UTF8.self))
                    .filter({ $0["outcome"] as? String == "stored" }).count < more {
                    let chunk = ShoeboxProcess.readSome(out.fileHandleForReading)
                    if chunk.isEmpty { break }
                    output.append(chunk)
                }
            case .multipartInProgress:
                // The event is in the bucket: poll the server until the upload has begun.
                let deadline = Date().addingTimeInterval(60)
                var seen = false
                while process.isRunning, Date() < deadline {
                    seen = try !client.listAllMultipartUploads(bucket: bucket, prefix: "k/.tmp/").isEmpty
                    if seen { break }
                    usleep(5_000)
                }
                XCTAssertTrue(seen, "round \(round): the big body's multipart upload began")
            }
            XCTAssertTrue(process.isRunning, "round \(round): the fetch ended before the kill")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "round \(round)")
            output.append(ShoeboxProcess.readAll(out.fileHandleForReading))
            assertNoSecrets(String(decoding: ShoeboxProcess.readAll(err.fileHandleForReading), as: UTF8.self))
            storedSoFar += FetchRunner.parseLines(String(decoding: output, as: UTF8.self))
                .filter { $0["outcome"] as? String == "stored" }.count
            let catalogued = try catalogOriginals().count
            XCTAssertGreaterThanOrEqual(catalogued, storedSoFar, "round \(round): stored means recorded")
            if case .stored = moment {
                XCTAssertLessThan(catalogued, urls.count, "round \(round): killed before the end")
            } else {
                // What the kill left in the bucket is a notice of verify's, which the next writer clears.
                let verify = try shoebox(["verify", "--library", library, "--store", store])
                XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
                XCTAssertTrue(verify.stdout.contains("notice: leftover-temp .tmp/"), verify.stdout)
                XCTAssertTrue(verify.stdout.contains("incomplete multipart upload in the bucket"), verify.stdout)
            }
        }

        let rerun = try shoebox(arguments)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let verify = try shoebox(["verify", "--library", library, "--store", store])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        let originals = try assertBucketMatchesCatalog(bucket, prefix: "k")
        XCTAssertEqual(originals.count, urls.count, "every URL is an original")
        XCTAssertTrue(originals.contains { $0.bytes == Int64((17 << 20) + 3) }, "the big body is there")
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: library + "/.tmp")) ?? []
        XCTAssertEqual(staging, [], "nothing left staged")
    }
}
