import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// thumbs and gallery on several machines: a shared catalog (a real PostgreSQL 15) and originals
/// and thumbnails in a bucket (OpenStack Swift with s3api), several shoebox processes that share
/// nothing else (no library folder, a TMPDIR each), the fixture HTTP server; all on 127.0.0.1.
final class SharedThumbsTests: XCTestCase {
    static let s3Fixture = SwiftS3Fixture()
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        s3Fixture.start()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        s3Fixture.stop()
        super.tearDown()
    }

    private var s3: SwiftS3Server!
    private var client: S3Client!
    private var work: URL!
    private var uri = ""
    private var bucket = ""
    private var store: String { "s3://\(bucket)/shared" }

    override func setUpWithError() throws {
        s3 = try Self.s3Fixture.running()
        client = try Self.s3Fixture.client()
        uri = try Self.postgres.running().makeDatabase()
        work = try makeTemporaryDirectory(self)
        bucket = "t-" + UUID().uuidString.lowercased().prefix(13)
        try s3.createBucket(bucket)
    }

    /// A machine: the AWS variables, the catalog, and a TMPDIR of its own.
    private func machine(_ name: String) throws -> [String: String] {
        let temporary = work.appendingPathComponent("tmp-" + name).path
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        return [
            "AWS_ACCESS_KEY_ID": s3.accessKey, "AWS_SECRET_ACCESS_KEY": s3.secret,
            "AWS_ENDPOINT_URL": s3.endpoint, "AWS_ENDPOINT_URL_S3": "", "AWS_REGION": s3.region,
            "AWS_DEFAULT_REGION": "", "AWS_SESSION_TOKEN": "", "SHOEBOX_STORE": store,
            "SHOEBOX_CATALOG": uri, "SHOEBOX_LIBRARY": "", "TMPDIR": temporary,
        ]
    }

    /// `count` distinct photos fetched into the bucket and the shared catalog.
    private func fetchPhotos(_ count: Int) throws -> [OriginalRecord] {
        let server = try startFixtureServer()
        let urls = (0..<count).map { server.url("/photo/t\($0).jpg?seed=thumbs-\($0)") }
        let list = work.appendingPathComponent("list.txt")
        try (urls.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        let fetch = try ShoeboxProcess.run(["fetch", list.path, "-j", "4"], environment: try machine("fetch"))
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let catalog = try PostgresCatalog(uri: uri)
        defer { catalog.close() }
        let originals = try catalog.allOriginals()
        XCTAssertEqual(originals.count, count)
        return originals
    }

    private func thumbnailRows() throws -> [ThumbnailRecord] {
        let catalog = try PostgresCatalog(uri: uri)
        defer { catalog.close() }
        return try catalog.allThumbnails()
    }

    /// Keys under `prefix` in the bucket.
    private func keys(under prefix: String) throws -> Set<String> {
        var all: Set<String> = []
        var token: String?
        repeat {
            let page = try client.listObjectsV2(bucket: bucket, prefix: prefix, continuationToken: token)
            all.formUnion(page.objects.map(\.key))
            token = page.nextContinuationToken
        } while token != nil
        return all
    }

    /// The thumbnails made, as `--json` printed them: (original, path) per line.
    private func made(_ stdout: String) -> [(original: String, path: String)] {
        FetchRunner.parseLines(stdout).compactMap { line in
            guard let original = line["original"] as? String, let path = line["path"] as? String else { return nil }
            return (original, path)
        }
    }

    /// Every catalogued original has its one thumbnail row, and each row is an object of the
    /// recorded size and type in the bucket, which holds no other thumbnail.
    private func assertOneThumbnailEach(_ originals: [OriginalRecord], file: StaticString = #filePath, line: UInt = #line) throws {
        let rows = try thumbnailRows()
        XCTAssertEqual(Set(rows.map(\.originalSHA256)), Set(originals.map(\.sha256)), "a row for every original", file: file, line: line)
        XCTAssertEqual(rows.count, originals.count, "one row each", file: file, line: line)
        XCTAssertEqual(try keys(under: "shared/thumbnails/"), Set(rows.map { "shared/" + $0.path }),
                       "one object per row, nothing else", file: file, line: line)
        for row in rows.prefix(5) {
            let info = try client.headObject(bucket: bucket, key: "shared/" + row.path)
            XCTAssertEqual(info.size, row.bytes, row.path, file: file, line: line)
            XCTAssertEqual(info.contentType, "image/jpeg", row.path, file: file, line: line)
        }
    }

    func testThreeWorkersMakeEachThumbnailOnceIntoTheBucketAndTheGalleryIsServedFromIt() throws {
        let originals = try fetchPhotos(36)
        let workers = try (0..<3).map { index in
            try ShoeboxProcess.start(["thumbs", "--size", "32", "-j", "1", "--json"], environment: try machine("w\(index)"))
        }
        let results = workers.map { ShoeboxProcess.waitCapturing($0.0, out: $0.1, err: $0.2) }
        for result in results { XCTAssertEqual(result.status, 0, result.stderr) }
        let lines = results.flatMap { made($0.stdout) }
        XCTAssertEqual(lines.count, originals.count, "each original made once, by one worker: \(results.map(\.stderr))")
        XCTAssertEqual(Set(lines.map(\.original)), Set(originals.map(\.path)))
        try assertOneThumbnailEach(originals)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("library").path))
        for index in 0..<3 {
            let scratch = try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("tmp-w\(index)").path)
            XCTAssertFalse(scratch.contains { $0.hasPrefix("shoebox-thumbs-") || $0.hasPrefix("shoebox-original-") },
                           "scratch copies removed: \(scratch)")
        }

        // A rerun anywhere finds them up to date, from the listing and the catalog.
        let again = try ShoeboxProcess.run(["thumbs", "--size", "32"], environment: try machine("w0"))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("36 up to date, 0 failed; 0 thumbnails made"), again.stderr)
        let verify = try ShoeboxProcess.run(["verify", "--quick"], environment: try machine("v"))
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)

        // An object lost is a problem for verify, and the next thumbs makes it again.
        let lost = try XCTUnwrap(try thumbnailRows().first)
        try client.deleteObject(bucket: bucket, key: "shared/" + lost.path)
        let damaged = try ShoeboxProcess.run(["verify", "--quick"], environment: try machine("v"))
        XCTAssertEqual(damaged.status, 1, damaged.stdout + damaged.stderr)
        XCTAssertTrue(damaged.stdout.contains("thumbnail-missing"), damaged.stdout)
        XCTAssertTrue(damaged.stdout.contains(lost.path), damaged.stdout)
        let remade = try ShoeboxProcess.run(["thumbs", "--size", "32", "--json"], environment: try machine("w1"))
        XCTAssertEqual(remade.status, 0, remade.stderr)
        XCTAssertEqual(made(remade.stdout).map(\.path), [lost.path])
        try assertOneThumbnailEach(originals)

        // The gallery goes into the bucket, and every link in it is an object beside it.
        let gallery = try ShoeboxProcess.run(["gallery"], environment: try machine("g"))
        XCTAssertEqual(gallery.status, 0, gallery.stderr)
        XCTAssertEqual(gallery.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "s3://\(bucket)/shared/gallery/index.html")
        let pageInfo = try client.headObject(bucket: bucket, key: "shared/gallery/index.html")
        XCTAssertEqual(pageInfo.contentType, "text/html; charset=utf-8")
        let stored = try keys(under: "shared/")
        // Every page of the gallery (front page, months, photos): each link is an object of the
        // bucket, resolved from the page's own folder.
        var thumbnailsLinked: Set<String> = [], originalsLinked: Set<String> = []
        for key in stored where key.hasPrefix("shared/gallery/") && key.hasSuffix(".html") {
            var page = Data()
            try client.getObject(bucket: bucket, key: key) { page.append(contentsOf: $0) }
            let folder = (key as NSString).deletingLastPathComponent
            for link in Self.links(in: String(decoding: page, as: UTF8.self)) where !link.hasPrefix("https://") {
                let target = URL(fileURLWithPath: "/" + folder + "/" + (link.removingPercentEncoding ?? link).split(separator: "#")[0])
                    .standardizedFileURL.path.dropFirst()
                XCTAssertTrue(stored.contains(String(target)), "\(key): \(link) is no object of the bucket")
                if target.hasPrefix("shared/thumbnails/") { thumbnailsLinked.insert(String(target)) }
                if target.hasPrefix("shared/originals/") { originalsLinked.insert(String(target)) }
            }
        }
        XCTAssertEqual(originalsLinked.count, originals.count, "every original linked")
        XCTAssertGreaterThanOrEqual(thumbnailsLinked.count, originals.count)
        // A local copy of the gallery carries the thumbnails it shows.
        let out = work.appendingPathComponent("page").path
        let local = try ShoeboxProcess.run(["gallery", "--out", out], environment: try machine("g"))
        XCTAssertEqual(local.status, 0, local.stderr)
        var localThumbnails: Set<String> = []
        for file in try FileManager.default.subpathsOfDirectory(atPath: out) where file.hasSuffix(".html") {
            let html = try String(contentsOfFile: out + "/" + file, encoding: .utf8)
            let folder = (file as NSString).deletingLastPathComponent
            for link in Self.links(in: html) where !link.hasPrefix("https://") {
                let path = URL(fileURLWithPath: out + "/" + folder + "/" + (link.removingPercentEncoding ?? link).split(separator: "#")[0])
                    .standardizedFileURL.path
                XCTAssertTrue(path.hasPrefix(out + "/"), "\(file): \(link) leads out of the folder")
                XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(file): broken link \(link)")
                XCTAssertFalse(path.contains("/originals/"), "originals are not linked from a local copy")
                if path.hasPrefix(out + "/thumbnails/") {
                    localThumbnails.insert(path)
                    let data = try XCTUnwrap(FileManager.default.contents(atPath: path))
                    XCTAssertEqual(Array(data.prefix(3)), [0xFF, 0xD8, 0xFF], link)
                }
            }
        }
        XCTAssertGreaterThanOrEqual(localThumbnails.count, originals.count)
    }

    /// A worker that died holding claims (made here with the claims' own code, never released)
    /// keeps them until its lease runs out; the worker left then makes them, and every claim ends
    /// done by it.
    func testAKilledWorkersClaimsAreMadeByAnotherOnceItsLeaseRunsOut() throws {
        let originals = try fetchPhotos(24)
        let options = ThumbnailOptions(sizes: try ThumbnailSize.parseList("32"))
        let dead = try PostgresThumbnailClaims(uri: uri, job: ThumbnailUpdater.job(options),
                                               worker: WorkerIdentity(id: "gone-1-dead", host: "gone", pid: 1))
        try dead.begin()
        let held = Array(originals.prefix(10).map(\.path))
        let answer = try dead.claim(held, lease: 4)
        XCTAssertEqual(Set(answer.granted), Set(held))
        dead.close()
        let started = Date()
        let survivor = try ShoeboxProcess.run(["thumbs", "--size", "32", "-j", "2", "--json", "--lease", "3"],
                                              environment: try machine("survivor"))
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(survivor.status, 0, survivor.stderr)
        XCTAssertEqual(Set(made(survivor.stdout).map(\.original)), Set(originals.map(\.path)), "all made, the dead worker's too")
        XCTAssertGreaterThan(elapsed, 2.5, "the dead worker's claims were taken only after its lease ran out")
        try assertOneThumbnailEach(originals)
        let database = String(uri.split(separator: "/").last ?? "")
        let states = try Self.postgres.running().psql(
            "SELECT state || ' ' || (worker LIKE 'gone-%')::text || ' ' || count(*) FROM thumbnail_claims GROUP BY state, worker LIKE 'gone-%'",
            database: database)
        // Grouped by the whole text: one line, every claim done, none by the dead worker.
        XCTAssertEqual(states.split(separator: "\n").map(String.init), ["done false 24"], states)
    }

    /// Two workers at once, one killed at an arbitrary moment: the other finishes the list, and
    /// the bucket and the catalog agree (no thumbnail without its row, none missing).
    func testAWorkerKilledMidRunLeavesTheOtherToFinishEverything() throws {
        let originals = try fetchPhotos(30)
        let victim = try ShoeboxProcess.start(["thumbs", "--size", "32", "-j", "1", "--lease", "3"], environment: try machine("victim"))
        let other = try ShoeboxProcess.start(["thumbs", "--size", "32", "-j", "1", "--lease", "3"], environment: try machine("other"))
        usleep(useconds_t(Int.random(in: 50_000...400_000)))
        kill(victim.0.processIdentifier, SIGKILL)
        _ = ShoeboxProcess.waitCapturing(victim.0, out: victim.1, err: victim.2)
        let result = ShoeboxProcess.waitCapturing(other.0, out: other.1, err: other.2)
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertOneThumbnailEach(originals)
        let verify = try ShoeboxProcess.run(["verify", "--quick"], environment: try machine("v"))
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    /// Rows of thumbnail_claims (0 while the table is not there yet).
    private func claimRows() -> Int {
        let database = String(uri.split(separator: "/").last ?? "")
        return (try? Self.postgres.running().psql("SELECT count(*) FROM thumbnail_claims", database: database)).flatMap { Int($0) } ?? 0
    }

    /// Starts thumbs on `count` originals and returns once it has claimed some.
    private func startThumbsAndWaitForClaims(environment: [String: String]) throws -> (Process, Pipe, Pipe) {
        let worker = try ShoeboxProcess.start(["thumbs", "--size", "32", "-j", "1", "--lease", "5"], environment: environment)
        let deadline = Date().addingTimeInterval(60)
        while claimRows() == 0 && worker.0.isRunning && Date() < deadline { usleep(20_000) }
        return worker
    }

    func testADatabaseGoneForFiveSecondsIsWaitedForAndEveryThumbnailIsMade() throws {
        let originals = try fetchPhotos(160)
        let worker = try startThumbsAndWaitForClaims(environment: try machine("w"))
        XCTAssertTrue(worker.0.isRunning, "still working when the database goes")
        let server = try Self.postgres.running()
        try server.pause()
        sleep(5)
        try server.resume()
        let result = ShoeboxProcess.waitCapturing(worker.0, out: worker.1, err: worker.2)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("the shared catalog did not answer"), "the wait is said: \(result.stderr)")
        try assertOneThumbnailEach(originals)
        let verify = try ShoeboxProcess.run(["verify", "--quick"], environment: try machine("v"))
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    func testADatabaseThatStaysAwayStopsThumbsWithExitStatusFiveAndARerunFinishes() throws {
        let originals = try fetchPhotos(160)
        var environment = try machine("w")
        environment["SHOEBOX_CATALOG_RETRY_SECONDS"] = "2"
        let worker = try startThumbsAndWaitForClaims(environment: environment)
        XCTAssertTrue(worker.0.isRunning, "still working when the database goes")
        let server = try Self.postgres.running()
        try server.pause()
        let stopped = ShoeboxProcess.waitCapturing(worker.0, out: worker.1, err: worker.2)
        try server.resume()
        XCTAssertEqual(stopped.status, 5, stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains("PostgreSQL"), stopped.stderr)
        // Its claims run out (5 s) and a rerun on another machine makes everything.
        let rerun = try ShoeboxProcess.run(["thumbs", "--size", "32", "-j", "2"], environment: try machine("other"))
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        try assertOneThumbnailEach(originals)
    }

    /// The targets of src, srcset and href attributes in `html`.
    static func links(in html: String) -> [String] {
        var found: [String] = []
        let scanner = html as NSString
        let expression = try! NSRegularExpression(pattern: "(?:src|href|srcset)=\"([^\"]*)\"")
        for match in expression.matches(in: html, range: NSRange(location: 0, length: scanner.length)) {
            let value = scanner.substring(with: match.range(at: 1)).replacingOccurrences(of: "&amp;", with: "&")
            for candidate in value.split(separator: ",") {
                guard let url = candidate.split(separator: " ").first.map(String.init), !url.hasPrefix("#") else { continue }
                if !found.contains(url) { found.append(url) }
            }
        }
        return found
    }
}
