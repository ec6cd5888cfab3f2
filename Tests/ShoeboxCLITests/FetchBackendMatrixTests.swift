import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// The fetch rules every store and catalog must keep, run against the local folder and SQLite
/// catalog here, against a real S3 server (OpenStack Swift with s3api) in
/// `FetchBackendMatrixOnObjectStoreTests`, and with a shared catalog in a real PostgreSQL in
/// `FetchBackendMatrixOnSharedCatalogTests` (originals in the library folder) and
/// `FetchBackendMatrixOnSharedCatalogAndObjectStoreTests` (in the S3 server: several machines'
/// setup): Content-Type rules, HTML, truncation, oversize with and without a length, stalls,
/// redirects, duplicates, the second run's skip, --refresh and its 304, an original put back,
/// a kill -9 then a rerun. Each test ends by checking the library against the catalog where
/// the originals are (`FetchRunner.assertConsistent`).
class FetchBackendMatrixTests: XCTestCase {
    var server: FixtureServer!
    var runner: FetchRunner!

    /// The servers of the class's backends, started in its setUp, stopped in its tearDown: an S3
    /// server whose bucket holds the originals (nil: LIBRARY/originals/), a PostgreSQL whose
    /// database is the shared catalog (nil: LIBRARY/catalog.sqlite).
    class var s3: SwiftS3Fixture? { nil }
    class var postgres: PostgresFixture? { nil }

    override class func setUp() {
        super.setUp()
        postgres?.start()
        s3?.start()
    }

    override class func tearDown() {
        s3?.stop()
        postgres?.stop()
        super.tearDown()
    }

    override func setUpWithError() throws {
        server = try startFixtureServer()
        runner = try FetchRunner(self)
        // A bucket and a database of the test's own; a server that did not start fails each test with the reason.
        runner.store = try Self.s3.map {
            try ObjectStoreBackend(server: $0.running(), bucket: "matrix-" + UUID().uuidString.prefix(8).lowercased())
        }
        runner.sharedCatalog = try Self.postgres.map { try SharedCatalogBackend(server: $0.running()) }
    }

    private func catalog() throws -> Catalog { try runner.openCatalog() }

    func testAPhotoIsStoredByteForByteUnderItsCaptureDate() throws {
        let path = "/photo/IMG_0001.jpg?date=2021:05:06%2007:08:09&lat=-33.5&lon=151.25&make=Canon&model=EOS%20R5"
        let url = server.url(path)
        let output = try runner.fetch([url])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(url), "stored")
        XCTAssertEqual(output.record(url)?["path"] as? String, "originals/2021/05/06/IMG_0001.jpg")
        let expected = try server.get(path)
        XCTAssertEqual(try runner.contents(of: "originals/2021/05/06/IMG_0001.jpg"), expected)
        XCTAssertEqual(output.record(url)?["sha256"] as? String, SHA256Hasher.hex(of: expected))
        try runner.assertConsistent()
    }

    func testContentTypeAndSniffingRules() throws {
        let urls = [
            "declaredPNG": server.url("/photo/a?seed=a&ct=image/png"),
            "missing": server.url("/photo/b?seed=b&ct=none"),
            "generic": server.url("/photo/c?seed=c&ct=application/octet-stream"),
            "png": server.url("/png/e.png"),
            "html": server.url("/html"),
            "empty": server.url("/empty"),
            "text": server.url("/text"),
        ]
        let output = try runner.fetch(Array(urls.values))
        XCTAssertEqual(output.status, 1, "rejections make the exit status 1")
        for key in ["declaredPNG", "missing", "generic"] {
            XCTAssertEqual(output.outcome(urls[key]!), "stored", key)
            XCTAssertEqual(output.record(urls[key]!)?["extension"] as? String, "jpg", key)
        }
        XCTAssertEqual(output.outcome(urls["png"]!), "stored")
        XCTAssertEqual(output.record(urls["png"]!)?["extension"] as? String, "png")
        for key in ["html", "empty", "text"] { XCTAssertEqual(output.outcome(urls[key]!), "rejected", key) }
        XCTAssertEqual(try catalog().countOriginals(), 4)
        try runner.assertConsistent()
    }

    func testTruncatedBodiesAreRetriedAndNeverStored() throws {
        let once = server.url("/truncate-once/o"), always = server.url("/truncate-always/a")
        let closedOnce = server.url("/close-delimited/once?seed=once&cut=once")
        let closedAlways = server.url("/close-delimited/always?seed=always&cut=always")
        let output = try runner.fetch([once, always, closedOnce, closedAlways], ["--retries", "1"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(once), "stored", output.stderr)
        XCTAssertEqual(output.outcome(closedOnce), "stored", output.stderr)
        XCTAssertEqual(output.outcome(always), "failed")
        XCTAssertEqual(output.outcome(closedAlways), "failed")
        XCTAssertEqual(try catalog().countOriginals(), 2, "nothing cut was stored")
        try runner.assertConsistent()
    }

    func testOversizeIsRefusedWithAndWithoutALength() throws {
        let declared = server.url("/big/declared?size=8000000&cl=1")
        let undeclared = server.url("/big/undeclared?size=8000000&cl=0")
        let output = try runner.fetch([declared, undeclared], ["--max-size", "1M"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(declared), "rejected")
        XCTAssertEqual(output.outcome(undeclared), "rejected")
        XCTAssertEqual(try catalog().countOriginals(), 0)
        try runner.assertConsistent()
    }

    func testABodyOverTheSingleUploadSizeIsStoredWhole() throws {
        // 20 MB: above the 8 MiB an object store takes in one PUT (a multipart upload of 3 parts there).
        let url = server.url("/big/large?size=20000000&cl=1")
        let output = try runner.fetch([url])
        XCTAssertEqual(output.outcome(url), "stored", output.stderr)
        let path = try XCTUnwrap(output.record(url)?["path"] as? String)
        let expected = try server.get("/big/large-reference?size=20000000&cl=1")
        XCTAssertEqual(expected.count, 20_000_000)
        XCTAssertEqual(try runner.contents(of: path), expected)
        try runner.assertConsistent()
    }

    func testAStalledTransferIsAbortedAndLeavesNothing() throws {
        let url = server.url("/stall/s?for=20")
        let started = Date()
        let output = try runner.fetch([url], ["--stall-timeout", "1", "--retries", "1"])
        XCTAssertEqual(output.outcome(url), "failed")
        XCTAssertTrue((output.record(url)?["reason"] as? String ?? "").contains("stalled"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 8)
        try runner.assertConsistent()
    }

    func testRedirectsAreFollowedAndLoopsFail() throws {
        let ok = server.url("/redirect/3"), loop = server.url("/redirect-loop")
        let output = try runner.fetch([ok, loop])
        XCTAssertEqual(output.outcome(ok), "stored", output.stderr)
        XCTAssertEqual(output.outcome(loop), "failed")
        XCTAssertEqual(try catalog().countOriginals(), 1)
        try runner.assertConsistent()
    }

    func testSameBytesUnderTwoURLsAreStoredOnce() throws {
        let first = server.url("/photo/one?seed=same"), second = server.url("/photo/two?seed=same")
        let output = try runner.fetch([first, second], ["--jobs", "1"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual([output.outcome(first), output.outcome(second)].compactMap { $0 }.sorted(), ["duplicate", "stored"])
        XCTAssertEqual(try catalog().countOriginals(), 1)
        let sha = try XCTUnwrap(output.record(first)?["sha256"] as? String)
        XCTAssertEqual(try catalog().sources(sha256: sha).count, 2)
        try runner.assertConsistent()
    }

    func testTheSecondRunSkipsArchivedURLsWithoutARequest() throws {
        let url = server.url("/photo/again?seed=again"), failing = server.url("/status/404")
        let first = try runner.fetch([url, failing])
        XCTAssertEqual(first.outcome(url), "stored")
        let second = try runner.fetch([url, failing])
        if runner.sharedCatalog != nil {
            // With a shared catalog a list is its workers' shared work, known by the SHA-256 of its
            // bytes: listed again once finished, its failed URLs are queued again and its done ones
            // stay done, without a result line.
            XCTAssertTrue(second.stderr.contains("finished earlier (1 done, 1 failed) in the shared catalog; 1 URL queued again"),
                          second.stderr)
            XCTAssertNil(second.outcome(url), second.stdout)
        } else {
            XCTAssertEqual(second.outcome(url), "skipped")
            XCTAssertEqual(second.record(url)?["path"] as? String, first.record(url)?["path"] as? String)
        }
        XCTAssertEqual(second.outcome(failing), "failed")
        XCTAssertEqual(try server.requestTimes("again").count, 1, "no request for an archived URL")
        XCTAssertEqual(try server.requestTimes("status/404").count, 2, "failed URLs are tried again")
        try runner.assertConsistent()
    }

    func testRefreshRevalidatesAndKeepsTheOlderOriginal() throws {
        let unchanged = server.url("/versioned/same"), changing = server.url("/versioned/moving?change=1")
        let first = try runner.fetch([unchanged, changing])
        XCTAssertEqual(first.status, 0)
        let second = try runner.fetch([unchanged, changing], ["--refresh"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.outcome(unchanged), "unchanged")
        XCTAssertEqual(second.record(unchanged)?["http_status"] as? Int, 304)
        XCTAssertEqual(second.outcome(changing), "stored")
        XCTAssertEqual(try catalog().countOriginals(), 3, "the old original is kept")
        // ... with the record of where it came from: the URL's versions, newest first.
        let versions = try catalog().sourceVersions(url: changing)
        XCTAssertEqual(versions.map(\.sha256), [second.record(changing)?["sha256"] as? String, first.record(changing)?["sha256"] as? String].compactMap { $0 })
        XCTAssertEqual(try catalog().sourceVersions(sha256: try XCTUnwrap(first.record(changing)?["sha256"] as? String)).map(\.url), [changing])
        if runner.store == nil && runner.sharedCatalog == nil {
            // The journal keeps the history: a rebuilt catalog has it too.
            try FileManager.default.removeItem(at: runner.library.appendingPathComponent("catalog.sqlite"))
            XCTAssertEqual(try ShoeboxProcess.run(["reindex", "--library", runner.library.path]).status, 0)
            XCTAssertEqual(try catalog().sourceVersions(url: changing).map(\.sha256), versions.map(\.sha256))
        }
        try runner.assertConsistent()
    }

    func testTheSameBytesPutBackAnOriginalWhoseFileIsGone() throws {
        let url = server.url("/photo/back?seed=back")
        let first = try runner.fetch([url])
        let path = try XCTUnwrap(first.record(url)?["path"] as? String)
        let bytes = try runner.contents(of: path)
        if let store = runner.store {
            try store.client.deleteObject(bucket: store.bucket, key: store.key(path))
        } else {
            try FileManager.default.removeItem(at: runner.library.appendingPathComponent(path))
        }
        let again = try runner.fetch([url], ["--refresh"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue((again.record(url)?["warnings"] as? [String] ?? []).contains { $0.hasPrefix("restored") }, again.stdout)
        XCTAssertEqual(try runner.contents(of: path), bytes)
        // The summary counts what was put back (it said "0 B stored").
        XCTAssertTrue(again.stderr.contains("1 restored; \(ByteSize.format(Int64(bytes.count))) stored"), again.stderr)
        try runner.assertConsistent()
    }

    /// Replaces the bytes of the original at `path` with `bytes` (an edit, bit rot): in the
    /// bucket as a plain upload would, in the folder through a writable mode put back after.
    private func damage(_ path: String, with bytes: Data) throws {
        if let store = runner.store {
            try store.client.putObject(bucket: store.bucket, key: store.key(path), data: bytes)
            return
        }
        let file = runner.library.appendingPathComponent(path).path
        chmod(file, 0o644)
        try bytes.write(to: URL(fileURLWithPath: file))
        chmod(file, 0o444)
    }

    private func remove(_ path: String) throws {
        if let store = runner.store { return try store.client.deleteObject(bucket: store.bucket, key: store.key(path)) }
        try FileManager.default.removeItem(at: runner.library.appendingPathComponent(path))
    }

    /// "… kept at damaged/STAMP/originals/…" in `text`: where a damaged file was kept.
    private func keptAt(_ text: String) -> String? {
        guard let range = text.range(of: "kept at ") else { return nil }
        return text[range.upperBound...].split(whereSeparator: { $0 == ")" || $0 == ";" || $0 == " " }).first.map(String.init)
    }

    private func verify(_ extra: [String]) throws -> (status: Int32, findings: [[String: Any]], stderr: String) {
        let result = try ShoeboxProcess.run(["verify", "--json", "--library", runner.library.path] + runner.backendArguments + extra,
                                            environment: runner.backendEnvironment)
        return (result.status, FetchRunner.parseLines(result.stdout), result.stderr)
    }

    func testRefreshPutsBackADamagedOriginalAndKeepsTheDamagedFile() throws {
        // The server would answer 304 to a revalidation; the copy in the library is what changed.
        let url = server.url("/photo/kept.jpg?seed=kept&etag=e1")
        let first = try runner.fetch([url])
        let path = try XCTUnwrap(first.record(url)?["path"] as? String)
        let bytes = try runner.contents(of: path)
        let damaged = Data(repeating: 0x41, count: bytes.count)
        try damage(path, with: damaged)
        let again = try runner.fetch([url], ["--refresh"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertNotEqual(again.record(url)?["http_status"] as? Int, 304, "a damaged copy is asked for whole")
        let warnings = again.record(url)?["warnings"] as? [String] ?? []
        XCTAssertTrue(warnings.contains { $0.hasPrefix("restored") && $0.contains("held other bytes") }, again.stdout)
        XCTAssertEqual(try runner.contents(of: path), bytes)
        let aside = try XCTUnwrap(warnings.compactMap(keptAt).first, again.stdout)
        XCTAssertTrue(aside.hasPrefix("damaged/") && aside.hasSuffix("/" + path), aside)
        XCTAssertEqual(try runner.contents(of: aside), damaged, "the damaged bytes are kept, not deleted")
        XCTAssertTrue(again.stderr.contains("1 restored"), again.stderr)
        XCTAssertTrue(again.stderr.contains("held other bytes than those recorded"), again.stderr)
        try runner.assertConsistent()
    }

    func testVerifyRepairPutsBackWhatItCanFromTheSourcesAndNeverReplacesGoodBytes() throws {
        let gone = server.url("/photo/gone.jpg?seed=gone"), changed = server.url("/photo/changed.jpg?seed=changed")
        let cut = server.url("/photo/cut.jpg?seed=cut"), moving = server.url("/versioned/moving?change=1")
        let intact = server.url("/photo/intact.jpg?seed=intact")
        let urls = [gone, changed, cut, moving, intact]
        let first = try runner.fetch(urls)
        XCTAssertEqual(first.status, 0, first.stderr)
        var paths: [String: String] = [:], bytes: [String: Data] = [:]
        for url in urls {
            paths[url] = try XCTUnwrap(first.record(url)?["path"] as? String)
            bytes[url] = try runner.contents(of: paths[url]!)
        }
        try remove(paths[gone]!)
        var flipped = bytes[changed]!
        flipped[flipped.count / 2] ^= 0xFF
        try damage(paths[changed]!, with: flipped)
        try damage(paths[cut]!, with: bytes[cut]!.prefix(100))
        let movingDamaged = Data(bytes[moving]!.reversed())
        try damage(paths[moving]!, with: movingDamaged)
        func inode(_ url: String) throws -> Int? {
            let file = runner.library.appendingPathComponent(paths[url]!).path
            return try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int
        }
        let intactBefore = runner.store == nil ? try inode(intact) : nil

        let repair = try verify(["--repair"])
        XCTAssertEqual(repair.status, 1, "the original whose server now sends other bytes is left broken: " + repair.stderr)
        func finding(_ url: String) -> [String: Any]? { repair.findings.first { $0["path"] as? String == paths[url] } }
        for url in [gone, changed, cut] {
            XCTAssertEqual(finding(url)?["kind"] as? String, "repaired", "\(url): \(repair.findings)")
            XCTAssertEqual(finding(url)?["severity"] as? String, "notice")
            XCTAssertTrue((finding(url)?["detail"] as? String ?? "").contains("put back from " + url), "\(finding(url) ?? [:])")
            XCTAssertEqual(try runner.contents(of: paths[url]!), bytes[url], url)
        }
        XCTAssertNil(keptAt(finding(gone)?["detail"] as? String ?? ""), "nothing to keep of a missing file")
        for (url, damaged) in [(changed, flipped), (cut, bytes[cut]!.prefix(100))] {
            let aside = try XCTUnwrap(keptAt(finding(url)?["detail"] as? String ?? ""), "\(finding(url) ?? [:])")
            XCTAssertEqual(try runner.contents(of: aside), damaged, "the damaged bytes are kept at \(aside)")
        }
        XCTAssertEqual(finding(moving)?["kind"] as? String, "hash-mismatch")
        let why = finding(moving)?["detail"] as? String ?? ""
        XCTAssertTrue(why.contains("not repaired: " + moving) && why.contains("other bytes"), why)
        XCTAssertEqual(try runner.contents(of: paths[moving]!), movingDamaged, "bytes are replaced only by the right ones")
        XCTAssertNil(finding(intact))
        XCTAssertTrue(repair.stderr.contains("3 originals repaired, 1 not repaired"), repair.stderr)
        if runner.store == nil {
            XCTAssertEqual(try inode(intact), intactBefore, "an intact original is left alone")
            for url in [gone, changed, cut] {
                let mode = try FileManager.default.attributesOfItem(atPath: runner.library.appendingPathComponent(paths[url]!).path)[.posixPermissions] as? Int
                XCTAssertEqual(mode, 0o444, "put back read-only")
            }
        }
        // Repaired stays repaired; only the original no source can give back is still reported.
        let after = try verify([])
        XCTAssertEqual(after.status, 1)
        XCTAssertEqual(after.findings.filter { $0["severity"] as? String == "problem" }.compactMap { $0["path"] as? String },
                       [paths[moving]!], "\(after.findings)")
    }

    func testImportArchivesLocalPhotosUnderTheSameRulesAndAFetchedPhotoIsADuplicate() throws {
        let url = server.url("/photo/fetched.jpg?seed=shared&date=2018:01:02%2003:04:05")
        XCTAssertEqual(try runner.fetch([url]).status, 0)
        let folder = runner.workDirectory.appendingPathComponent("card-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try server.get("/photo/fetched.jpg?seed=shared&date=2018:01:02%2003:04:05").write(to: folder.appendingPathComponent("same.jpg"))
        let own = try server.get("/photo/x.jpg?seed=own&date=2017:05:06%2007:08:09")
        try own.write(to: folder.appendingPathComponent("DSC_0001.JPG"))
        func runImport() throws -> (status: Int32, records: [[String: Any]], stderr: String) {
            let result = try ShoeboxProcess.run(["import", folder.path, "--json", "--library", runner.library.path] + runner.backendArguments,
                                                environment: runner.backendEnvironment)
            return (result.status, FetchRunner.parseLines(result.stdout), result.stderr)
        }
        let first = try runImport()
        XCTAssertEqual(first.status, 0, first.stderr)
        func outcome(_ name: String, in records: [[String: Any]]) -> String? {
            records.first { $0["source"] as? String == folder.appendingPathComponent(name).path }?["outcome"] as? String
        }
        XCTAssertEqual(outcome("same.jpg", in: first.records), "duplicate")
        XCTAssertEqual(outcome("DSC_0001.JPG", in: first.records), "stored")
        XCTAssertEqual(try runner.contents(of: "originals/2017/05/06/DSC_0001.jpg"), own)
        let again = try runImport()
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("2 unchanged"), again.stderr)
        try runner.assertConsistent()
    }

    func testAFetchKilledMidRunLosesNothingAndARerunCompletes() throws {
        let count = 60
        let urls = (0..<count).map { server.url("/slow/kill-\($0)?delay=0.03&seed=\($0)") }
        let list = try runner.writeList(urls).path
        // A shared catalog is read through one connection, kept for the polling.
        let shared: Catalog? = try runner.sharedCatalog?.open()
        defer { shared?.close() }
        func catalogued() -> Int {
            (try? (shared ?? runner.openCatalog(checkIntegrity: false)).countOriginals()) ?? 0
        }
        // With a shared catalog the list is shared work: a killed worker's claims go back to it
        // once their lease runs out (--lease, 60 s by default), and the next worker waits for
        // them. A short lease spares the test that wait.
        let lease = runner.sharedCatalog == nil ? [] : ["--lease", "3"]
        var killed = 0
        for round in 1...3 {
            let target = catalogued() + 5 + round
            let (process, _, _) = try ShoeboxProcess.start(
                ["fetch", list, "--library", runner.library.path, "--jobs", "4"] + lease + runner.backendArguments,
                environment: runner.backendEnvironment)
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, catalogued() < target, Date() < deadline { usleep(2_000) }
            usleep(UInt32(round) * 7_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { killed += 1 }
            try runner.assertConsistent(allowStaging: true)
        }
        XCTAssertEqual(killed, 3, "every kill landed mid-run")
        XCTAssertLessThan(catalogued(), count)
        // With a shared catalog, what a killed writer published and never committed waits at
        // names still reserved for it (allowed above) until a writer starts once those
        // reservations are stale, ten minutes on (`LibraryRecovery.staleReservationAge`): the
        // rerun comes that much later, and must remove them (checked below).
        try runner.sharedCatalog?.ageReservations(by: LibraryRecovery.staleReservationAge)
        let rerun = try runner.run([list, "--jobs", "4"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(catalogued(), count)
        try runner.assertConsistent()
        let verify = try ShoeboxProcess.run(["verify", "--library", runner.library.path] + runner.backendArguments,
                                            environment: runner.backendEnvironment)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(verify.stdout, "", "no finding after the rerun")
    }
}

/// The same rules with the originals in a bucket of a real S3 server.
final class FetchBackendMatrixOnObjectStoreTests: FetchBackendMatrixTests {
    private static let objectStore = SwiftS3Fixture()
    override class var s3: SwiftS3Fixture? { objectStore }

    // Linux's test discovery finds no inherited test: each is named here again.
    override func testAPhotoIsStoredByteForByteUnderItsCaptureDate() throws { try super.testAPhotoIsStoredByteForByteUnderItsCaptureDate() }
    override func testContentTypeAndSniffingRules() throws { try super.testContentTypeAndSniffingRules() }
    override func testTruncatedBodiesAreRetriedAndNeverStored() throws { try super.testTruncatedBodiesAreRetriedAndNeverStored() }
    override func testOversizeIsRefusedWithAndWithoutALength() throws { try super.testOversizeIsRefusedWithAndWithoutALength() }
    override func testABodyOverTheSingleUploadSizeIsStoredWhole() throws { try super.testABodyOverTheSingleUploadSizeIsStoredWhole() }
    override func testAStalledTransferIsAbortedAndLeavesNothing() throws { try super.testAStalledTransferIsAbortedAndLeavesNothing() }
    override func testRedirectsAreFollowedAndLoopsFail() throws { try super.testRedirectsAreFollowedAndLoopsFail() }
    override func testSameBytesUnderTwoURLsAreStoredOnce() throws { try super.testSameBytesUnderTwoURLsAreStoredOnce() }
    override func testTheSecondRunSkipsArchivedURLsWithoutARequest() throws { try super.testTheSecondRunSkipsArchivedURLsWithoutARequest() }
    override func testRefreshRevalidatesAndKeepsTheOlderOriginal() throws { try super.testRefreshRevalidatesAndKeepsTheOlderOriginal() }
    override func testTheSameBytesPutBackAnOriginalWhoseFileIsGone() throws { try super.testTheSameBytesPutBackAnOriginalWhoseFileIsGone() }
    override func testAFetchKilledMidRunLosesNothingAndARerunCompletes() throws { try super.testAFetchKilledMidRunLosesNothingAndARerunCompletes() }
}

/// The same rules with a shared catalog in a real PostgreSQL (`--catalog postgres://…`) and the
/// originals in the library folder: every list goes through the catalog's work queue, and every
/// check reads the catalog there.
final class FetchBackendMatrixOnSharedCatalogTests: FetchBackendMatrixTests {
    private static let database = PostgresFixture()
    override class var postgres: PostgresFixture? { database }

    // Linux's test discovery finds no inherited test: each is named here again.
    override func testAPhotoIsStoredByteForByteUnderItsCaptureDate() throws { try super.testAPhotoIsStoredByteForByteUnderItsCaptureDate() }
    override func testContentTypeAndSniffingRules() throws { try super.testContentTypeAndSniffingRules() }
    override func testTruncatedBodiesAreRetriedAndNeverStored() throws { try super.testTruncatedBodiesAreRetriedAndNeverStored() }
    override func testOversizeIsRefusedWithAndWithoutALength() throws { try super.testOversizeIsRefusedWithAndWithoutALength() }
    override func testABodyOverTheSingleUploadSizeIsStoredWhole() throws { try super.testABodyOverTheSingleUploadSizeIsStoredWhole() }
    override func testAStalledTransferIsAbortedAndLeavesNothing() throws { try super.testAStalledTransferIsAbortedAndLeavesNothing() }
    override func testRedirectsAreFollowedAndLoopsFail() throws { try super.testRedirectsAreFollowedAndLoopsFail() }
    override func testSameBytesUnderTwoURLsAreStoredOnce() throws { try super.testSameBytesUnderTwoURLsAreStoredOnce() }
    override func testTheSecondRunSkipsArchivedURLsWithoutARequest() throws { try super.testTheSecondRunSkipsArchivedURLsWithoutARequest() }
    override func testRefreshRevalidatesAndKeepsTheOlderOriginal() throws { try super.testRefreshRevalidatesAndKeepsTheOlderOriginal() }
    override func testTheSameBytesPutBackAnOriginalWhoseFileIsGone() throws { try super.testTheSameBytesPutBackAnOriginalWhoseFileIsGone() }
    override func testAFetchKilledMidRunLosesNothingAndARerunCompletes() throws { try super.testAFetchKilledMidRunLosesNothingAndARerunCompletes() }
}

/// The same rules as several machines run them: a shared catalog in a real PostgreSQL and the
/// originals in a bucket of a real S3 server.
final class FetchBackendMatrixOnSharedCatalogAndObjectStoreTests: FetchBackendMatrixTests {
    private static let objectStore = SwiftS3Fixture()
    private static let database = PostgresFixture()
    override class var s3: SwiftS3Fixture? { objectStore }
    override class var postgres: PostgresFixture? { database }

    // Linux's test discovery finds no inherited test: each is named here again.
    override func testAPhotoIsStoredByteForByteUnderItsCaptureDate() throws { try super.testAPhotoIsStoredByteForByteUnderItsCaptureDate() }
    override func testContentTypeAndSniffingRules() throws { try super.testContentTypeAndSniffingRules() }
    override func testTruncatedBodiesAreRetriedAndNeverStored() throws { try super.testTruncatedBodiesAreRetriedAndNeverStored() }
    override func testOversizeIsRefusedWithAndWithoutALength() throws { try super.testOversizeIsRefusedWithAndWithoutALength() }
    override func testABodyOverTheSingleUploadSizeIsStoredWhole() throws { try super.testABodyOverTheSingleUploadSizeIsStoredWhole() }
    override func testAStalledTransferIsAbortedAndLeavesNothing() throws { try super.testAStalledTransferIsAbortedAndLeavesNothing() }
    override func testRedirectsAreFollowedAndLoopsFail() throws { try super.testRedirectsAreFollowedAndLoopsFail() }
    override func testSameBytesUnderTwoURLsAreStoredOnce() throws { try super.testSameBytesUnderTwoURLsAreStoredOnce() }
    override func testTheSecondRunSkipsArchivedURLsWithoutARequest() throws { try super.testTheSecondRunSkipsArchivedURLsWithoutARequest() }
    override func testRefreshRevalidatesAndKeepsTheOlderOriginal() throws { try super.testRefreshRevalidatesAndKeepsTheOlderOriginal() }
    override func testTheSameBytesPutBackAnOriginalWhoseFileIsGone() throws { try super.testTheSameBytesPutBackAnOriginalWhoseFileIsGone() }
    override func testAFetchKilledMidRunLosesNothingAndARerunCompletes() throws { try super.testAFetchKilledMidRunLosesNothingAndARerunCompletes() }
}
