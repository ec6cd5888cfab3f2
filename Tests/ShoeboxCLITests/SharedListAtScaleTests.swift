import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// Issue #18's tests of several machines on one list: three `shoebox fetch` workers that share
/// nothing but a PostgreSQL catalog, a bucket (OpenStack Swift's S3 API) and a list of
/// thousands of lines (`listLines`) served by the fixture server, all on 127.0.0.1 (`SharedListMachines`: a HOME and a TMPDIR
/// per worker, no library folder). The list mixes distinct photos (some with the same file
/// name, so that names collide), URLs listed twice, different URLs with the same bytes, 404s,
/// HTML pages and 503s with Retry-After (`MixedList`).
final class SharedListAtScaleTests: XCTestCase {
    static let postgres = PostgresFixture()
    static let s3 = SwiftS3Fixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
        s3.start()
    }

    override class func tearDown() {
        s3.stop()
        postgres.stop()
        super.tearDown()
    }

    private var work: URL!
    private var server: FixtureServer!

    override func setUpWithError() throws {
        work = try makeTemporaryDirectory(self)
        server = try startFixtureServer()
    }

    /// Lines in a list: SHOEBOX_SHARED_LIST_LINES when set (3000 for the issue's size), else
    /// `standard`, what fits the 90 s each test may take in debug on 2 cores, where the S3
    /// server (Swift's proxy, in Python) takes more than a core: 2,000 without kills, 1,500 with
    /// them. Measured with 3,000 lines: 75 to 128 s without kills, 94 s with them.
    private func listLines(_ standard: Int) -> Int {
        ProcessInfo.processInfo.environment["SHOEBOX_SHARED_LIST_LINES"].flatMap { Int($0) } ?? standard
    }
    /// `--jobs` of each worker: a claim batch is twice that, at least 16 (so 16).
    private let jobs = 8
    private let claimBatch = 16

    private func machines(_ environment: [String: String] = [:]) throws -> SharedListMachines {
        let store = try ObjectStoreBackend(server: try Self.s3.running(), bucket: "b-" + UUID().uuidString.lowercased().prefix(13),
                                           prefix: "shared")
        let machines = try SharedListMachines(postgres: try Self.postgres.running(), store: store, work: work, environment: environment)
        addTeardownBlock { machines.killWorkers() }
        return machines
    }

    // MARK: The tests

    /// "Three workers on a 3,000-URL list (2,000 lines here, see `listLines`) …: the server log
    /// shows exactly one successful GET per distinct URL; the bucket holds exactly one object per
    /// distinct SHA-256; every source row is present; verify reports 0 problems." Also: each URL
    /// reported once, by one worker, and recorded with the outcome it was reported with.
    func testThreeWorkersArchiveAListOfThousandsOfLinesOnceEach() throws {
        let started = Date()
        let listLines = listLines(2000)
        let machines = try machines()
        var order = KillSeed(fixed: 18)
        let list = MixedList(tag: "all", lines: listLines, server: server, using: &order)
        let listPath = try list.write(in: work)
        let workers = try (0..<3).map { _ in try machines.startWorker(listPath, ["-j", String(jobs)]) }
        let outputs = workers.map { $0.finish(timeout: 300) }
        let fetched = Date()
        var reported: [String: Int] = [:]
        var outcomes: [String: String] = [:]
        for (ended, output) in outputs {
            XCTAssertTrue(ended, "a worker did not finish within 300 s: \(output.stderr.suffix(3000))")
            let results = FetchRunner.parseLines(output.stdout)
            XCTAssertFalse(results.isEmpty, "a worker did nothing: \(output.stderr.suffix(3000))")
            XCTAssertLessThan(results.count, list.distinctURLs.count, "the list was shared, not done by one worker")
            assertExitStatus(output, results: results)
            for result in results {
                let url = result["url"] as? String ?? "?"
                reported[url, default: 0] += 1
                outcomes[url] = result["outcome"] as? String ?? "?"
            }
        }
        XCTAssertEqual(Set(reported.keys), Set(list.distinctURLs.map(server.url)), "each distinct URL reported")
        XCTAssertEqual(reported.filter { $0.value != 1 }, [:], "URLs reported by more than one worker, or twice")

        // The server's log: per distinct URL exactly the requests its kind needs (one 200 for a
        // photo or a page, one 404, a 503 then a 200), and nothing else.
        let log = Dictionary(grouping: try server.accessLog(), by: \.path)
        XCTAssertEqual(Set(log.keys), list.distinctURLs, "requests only for the list's URLs, and for each")
        for path in list.distinctURLs.sorted() {
            let requests = log[path] ?? []
            XCTAssertEqual(requests.map(\.method), requests.map { _ in "GET" }, path)
            XCTAssertEqual(requests.map(\.status), list.kinds[path]?.statuses, "requests for \(path)")
        }

        let checked = Date()
        try assertArchivedOnce(list, machines: machines, listPath: listPath)
        // The catalog says of each URL what its worker reported.
        let catalog = try PostgresCatalog(uri: machines.uri)
        defer { catalog.close() }
        let recorded = Dictionary(try catalog.allSources().map { ($0.url, $0.outcome.rawValue) }, uniquingKeysWith: { first, _ in first })
        let differing = recorded.filter { outcomes[$0.key] != $0.value }
        XCTAssertEqual(differing.map { "\($0.key): \($0.value) in the catalog, reported \(outcomes[$0.key] ?? "nothing")" }.sorted(), [],
                       "source rows whose outcome is not the one reported")
        print("SharedListAtScaleTests: checks \(String(format: "%.1f", Date().timeIntervalSince(checked))) s")
        print("SharedListAtScaleTests: \(listLines) lines, \(list.distinctURLs.count) URLs, \(list.seeds.count) originals fetched by "
              + "3 workers in \(String(format: "%.1f", fetched.timeIntervalSince(started))) s, test \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// "kill -9 of one worker at random moments (10 tries): the others finish the list;
    /// afterwards verify is clean and no object is orphaned or missing." A moment is "after N
    /// more URLs were recorded, then a few milliseconds more" (N and the milliseconds from the
    /// seed, printed: SHOEBOX_KILL_SEED replays it); the worker killed is drawn from the three,
    /// and a new machine takes its place at once, so three keep working. The workers give up
    /// on a lost catalog after 2 s (SHOEBOX_CATALOG_RETRY_SECONDS) and take a dead writer's
    /// reservations for abandoned after 4 s (SHOEBOX_STALE_RESERVATION_SECONDS). Afterwards,
    /// once every reservation is older than that, the manual's way to clean up after a dead
    /// writer: the next writer to start (`shoebox reindex`).
    func testKillNineOfOneWorkerAtTenSeededMomentsLeavesNoOrphanAndNothingMissing() throws {
        let started = Date()
        let listLines = listLines(1500)
        var random = KillSeed("shared list kills")
        let staleAge = 4.0
        let machines = try machines(["SHOEBOX_CATALOG_RETRY_SECONDS": "2", "SHOEBOX_STALE_RESERVATION_SECONDS": String(Int(staleAge))])
        var order = KillSeed(fixed: random.seed)
        let list = MixedList(tag: "kill", lines: listLines, server: server, using: &order)
        let listPath = try list.write(in: work)
        let arguments = ["-j", String(jobs), "--lease", "3"]
        var workers = try (0..<3).map { _ in try machines.startWorker(listPath, arguments) }
        var finished: [RunningShoebox] = []
        var kills = 0
        var moments: [String] = []
        for _ in 1...10 {
            let more = Int.random(in: listLines / 50...listLines / 10, using: &random)
            let milliseconds = Int.random(in: 0..<300, using: &random)
            let victim = Int.random(in: 0..<workers.count, using: &random)
            let target = try machines.sourceCount() + more
            let deadline = Date().addingTimeInterval(60)
            while try machines.sourceCount() < target, Date() < deadline, workers.contains(where: { $0.process.isRunning }) {
                usleep(20_000)
            }
            usleep(useconds_t(milliseconds * 1000))
            if workers[victim].killNow() { kills += 1 }
            moments.append("+\(more) URLs +\(milliseconds) ms: worker \(victim)")
            finished.append(workers[victim])
            workers[victim] = try machines.startWorker(listPath, arguments)
        }
        print("SharedListAtScaleTests kills (\(random.label)): " + moments.joined(separator: "; "))
        XCTAssertEqual(kills, 10, "every kill hit a running worker (the list outlasts the kills): \(random.label)")
        for (ended, output) in workers.map({ $0.finish(timeout: 300) }) {
            XCTAssertTrue(ended, "a worker did not finish within 300 s: \(random.label): \(output.stderr.suffix(3000))")
            assertExitStatus(output, results: FetchRunner.parseLines(output.stdout), random.label)
        }
        let fetched = Date()
        let killedOutput = finished.map(\.output)
        XCTAssertTrue(killedOutput.allSatisfy { $0.status == SIGKILL }, "\(killedOutput.map(\.status)): \(random.label)")

        // What the dead writers left: objects published and never recorded, at names still
        // reserved for them (the replacements' start-up removed those already stale).
        let catalog = try PostgresCatalog(uri: machines.uri)
        let orphans = Set(try machines.store.originalPaths()).subtracting(try catalog.allOriginals().map(\.path))
        catalog.close()
        let reserved = try machines.count("SELECT count(*) FROM path_reservations")
        // Every reservation stale: older than the stale age, and no session left (the dead
        // writers' advisory locks gone with theirs).
        func young() throws -> Int {
            try machines.count("SELECT count(*) FROM path_reservations WHERE reserved_at > now() - make_interval(secs => \(staleAge + 0.5))")
        }
        func sessions() throws -> Int {
            try machines.count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try young() > 0 || sessions() > 0 { usleep(100_000) }
        XCTAssertEqual(try young(), 0, "\(random.label)")
        XCTAssertEqual(try sessions(), 0, "a session is left: \(random.label)")
        // The next writer to start, with nothing else to do: reindex (a fetch of the finished list
        // would queue its 404s again). It removes the orphans and must adopt nothing: an object
        // it would record, or find a duplicate of a catalogued original, is one no writer recorded.
        let cleanUp = try machines.run(["reindex", "--json"])
        XCTAssertEqual(cleanUp.status, 0, "\(random.label): " + cleanUp.stdout + cleanUp.stderr)
        let reindexed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(cleanUp.stdout.utf8)) as? [String: Any], cleanUp.stdout)
        XCTAssertEqual(reindexed["originals_from_files"] as? Int, 0, "\(random.label): \(reindexed)")
        XCTAssertEqual(reindexed["duplicate_files"] as? [String], [], "\(random.label): \(reindexed)")
        XCTAssertEqual(reindexed["temp_files_removed"] as? Int, orphans.count, "the clean-up removed the orphans found after the kills: "
                       + "\(random.label): \(reindexed)")
        XCTAssertEqual(try machines.count("SELECT count(*) FROM path_reservations"), 0, "every dead writer's reservation ended: \(random.label)")
        // What the replacements' start-up recovery removed, as they said.
        let removed = (finished + workers).map { Self.removedObjects($0.output.stderr) }.reduce(0, +)
        print("SharedListAtScaleTests: after the kills, \(orphans.count) orphaned object(s) at \(reserved) reserved name(s) before the clean-up; "
              + "objects removed by the replacements' start-up \(removed), by the clean-up \(reindexed["temp_files_removed"] ?? "?")")

        // Requests: one per URL (two for a 503), except what a killed worker held and had not
        // recorded when it died, fetched again once its lease ran out: less than two claim
        // batches per kill (a worker claims its next batch once less than one is unfinished).
        var repeated = 0
        let log = Dictionary(grouping: try server.accessLog(), by: \.path)
        XCTAssertEqual(Set(log.keys), list.distinctURLs, "requests only for the list's URLs, and for each: \(random.label)")
        for path in list.distinctURLs.sorted() {
            let statuses = (log[path] ?? []).map(\.status)
            let expected = list.kinds[path]?.statuses ?? []
            XCTAssertTrue(Set(expected).isSubset(of: statuses), "\(path): \(statuses): \(random.label)")
            XCTAssertLessThanOrEqual(statuses.count, expected.count + kills, "\(path): \(statuses): \(random.label)")
            if statuses.count > expected.count { repeated += statuses.count - expected.count }
        }
        XCTAssertLessThanOrEqual(repeated, kills * (2 * claimBatch - 1), "only dead workers' claims are fetched again: \(random.label)")
        try assertArchivedOnce(list, machines: machines, listPath: listPath, random.label)
        print("SharedListAtScaleTests: \(listLines) lines, 10 kills, \(repeated) repeated request(s); fetched in "
              + "\(String(format: "%.1f", fetched.timeIntervalSince(started))) s, test \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    // MARK: Checks

    /// How many objects a fetch said its start-up recovery removed ("removed N objects stored by
    /// writers that died …").
    private static func removedObjects(_ stderr: String) -> Int {
        stderr.split(separator: "\n").compactMap { line -> Int? in
            guard line.contains("stored by writers that died"), let range = line.range(of: "removed ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.reduce(0, +)
    }

    /// Exit status 1 when the worker's results include a failure (404s, HTML pages), else 0.
    private func assertExitStatus(_ output: ShoeboxProcess.Result, results: [[String: Any]], _ context: String = "",
                                  file: StaticString = #filePath, line: UInt = #line) {
        let failures = results.filter { ["failed", "rejected"].contains($0["outcome"] as? String) }.count
        XCTAssertEqual(output.status, failures > 0 ? 1 : 0, "\(context) \(output.stderr.suffix(3000))", file: file, line: line)
    }

    /// The list is done and archived once: `status` says every URL done or failed; each
    /// distinct URL has its source row with the outcome its kind gives; one original per
    /// distinct content, whose URLs' rows all name it; the bucket holds exactly the catalogued
    /// originals (no orphan, none missing); and verify, which hashes every object, finds nothing.
    private func assertArchivedOnce(_ list: MixedList, machines: SharedListMachines, listPath: String, _ context: String = "",
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        let status = try machines.status(listPath, file: file, line: line)
        XCTAssertEqual(status["total"] as? Int, list.distinctURLs.count, "\(context) \(status)", file: file, line: line)
        XCTAssertEqual(status["finished"] as? Bool, true, "\(context) \(status)", file: file, line: line)
        XCTAssertEqual(status["failed"] as? Int, list.failedForGood, "404s fail for good: \(context) \(status)", file: file, line: line)
        XCTAssertEqual(status["done"] as? Int, list.distinctURLs.count - list.failedForGood, "the rest is done (pages rejected): \(context) \(status)",
                       file: file, line: line)

        let catalog = try PostgresCatalog(uri: machines.uri)
        defer { catalog.close() }
        let sources = Dictionary(try catalog.allSources().map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(Set(sources.keys), Set(list.distinctURLs.map(server.url)), "one source row per distinct URL: \(context)",
                       file: file, line: line)
        var contents: [String: Set<String>] = [:]
        var stored: [String: Int] = [:]
        for path in list.distinctURLs.sorted() {
            guard let source = sources[server.url(path)], let kind = list.kinds[path] else { continue }
            switch kind {
            case .photo(let seed), .flaky(let seed):
                XCTAssertTrue([.stored, .duplicate].contains(source.outcome), "\(path): \(source): \(context)", file: file, line: line)
                XCTAssertEqual(source.httpStatus, 200, "\(path): \(context)", file: file, line: line)
                contents[seed, default: []].insert(source.sha256 ?? "none")
                if source.outcome == .stored { stored[seed, default: 0] += 1 }
            case .missing:
                XCTAssertEqual(source.outcome, .failed, "\(path): \(context)", file: file, line: line)
                XCTAssertEqual(source.httpStatus, 404, "\(path): \(context)", file: file, line: line)
            case .page:
                XCTAssertEqual(source.outcome, .rejected, "\(path): \(context)", file: file, line: line)
            }
        }
        XCTAssertEqual(contents.filter { $0.value.count != 1 }, [:], "the URLs of the same bytes name one original: \(context)",
                       file: file, line: line)
        XCTAssertEqual(stored.filter { $0.value != 1 }, [:], "each content stored once, by one URL: \(context)", file: file, line: line)
        XCTAssertEqual(Set(stored.keys), list.seeds, "\(context)", file: file, line: line)

        let originals = try catalog.allOriginals()
        let hashes = Set(contents.values.compactMap(\.first))
        XCTAssertEqual(hashes.count, list.seeds.count, "distinct contents have distinct hashes: \(context)", file: file, line: line)
        XCTAssertEqual(Set(originals.map(\.sha256)), hashes, "one original per distinct SHA-256: \(context)", file: file, line: line)
        XCTAssertEqual(originals.count, hashes.count, "\(context)", file: file, line: line)
        let objects = try machines.store.originalPaths()
        XCTAssertEqual(objects.count, originals.count, "one object per original: \(context)", file: file, line: line)
        XCTAssertEqual(Set(objects), Set(originals.map(\.path)), "the bucket holds the catalogued originals, no orphan, none missing: \(context)",
                       file: file, line: line)
        XCTAssertEqual(try machines.store.incompleteUploads(), 0, "no multipart upload left open: \(context)", file: file, line: line)

        let verifyStart = Date()
        // Objects are checked over the network: more at once than the two cores.
        let verify = try machines.run(["verify", "-j", "8"])
        print("SharedListAtScaleTests: verify of \(originals.count) originals in \(String(format: "%.1f", Date().timeIntervalSince(verifyStart))) s")
        XCTAssertEqual(verify.status, 0, "\(context): " + verify.stdout + verify.stderr, file: file, line: line)
        XCTAssertEqual(verify.stdout, "", "no finding, not even a notice: \(context)", file: file, line: line)
        XCTAssertTrue(verify.stderr.contains("verify: \(originals.count) originals checked"), "\(context): " + verify.stderr, file: file, line: line)
        XCTAssertTrue(verify.stderr.contains("\(objects.count) files under originals/"), "\(context): " + verify.stderr, file: file, line: line)
        XCTAssertTrue(verify.stderr.contains(": 0 problems, 0 notices"), "\(context): " + verify.stderr, file: file, line: line)
        XCTAssertFalse(verify.stderr.contains("not checked"), "nothing taken for a writer's work in progress: \(context): " + verify.stderr,
                       file: file, line: line)
    }
}

/// A list as issue #18 describes it, for the fixture server. Of `lines` lines: a twentieth are
/// pairs of URLs with the same bytes, a twentieth repeat a photo's URL listed elsewhere, a
/// fiftieth are 404s, a fiftieth HTML pages, a five-hundredth 503s with Retry-After: 2 that
/// give a photo on their retry; the rest are distinct photos, in threes with the same file
/// name and capture date (names that collide). Shuffled by `random`.
struct MixedList {
    enum Kind: Equatable {
        case photo(seed: String)
        case flaky(seed: String)
        case missing
        case page

        /// The statuses of the requests a URL of this kind needs, in order.
        var statuses: [Int] {
            switch self {
            case .photo, .page: return [200]
            case .flaky: return [503, 200]
            case .missing: return [404]
            }
        }
    }

    /// The lines, full URLs, in list order.
    private(set) var lines: [String] = []
    /// Each distinct URL's path (with its query, as the server logs it) and its kind.
    private(set) var kinds: [String: Kind] = [:]
    var distinctURLs: Set<String> { Set(kinds.keys) }
    /// The distinct contents (one original each).
    var seeds: Set<String> {
        Set(kinds.values.compactMap {
            switch $0 {
            case .photo(let seed), .flaky(let seed): return seed
            case .missing, .page: return nil
            }
        })
    }
    /// URLs that fail for good in the queue (404s; a page is done, rejected).
    var failedForGood: Int { kinds.values.filter { $0 == .missing }.count }

    init(tag: String, lines total: Int, server: FixtureServer, using random: inout KillSeed) {
        let pairs = total / 40, repeats = total / 20, missing = total / 50, pages = total / 50, flaky = max(2, total / 500)
        let photos = total - 2 * pairs - repeats - missing - pages - flaky
        var paths: [String] = []
        var kinds: [String: Kind] = [:]
        func add(_ path: String, _ kind: Kind) {
            kinds[path] = kind
            paths.append(path)
        }
        for index in 0..<photos {
            let name = String(format: "IMG_%04d.jpg", index / 3)
            let day = String(format: "%02d", index / 3 % 28 + 1)
            add("/photo/\(tag)/c\(index % 3)/\(name)?seed=\(tag)-\(index)&date=2024:05:\(day)%2010:00:00", .photo(seed: "\(tag)-\(index)"))
        }
        for index in 0..<pairs {
            for side in ["a", "b"] { add("/photo/\(tag)/pair-\(index)-\(side).jpg?seed=\(tag)-pair-\(index)", .photo(seed: "\(tag)-pair-\(index)")) }
        }
        for index in 0..<missing { add("/gone/\(tag)-\(index).jpg", .missing) }
        for index in 0..<pages { add("/html/\(tag)-\(index)", .page) }
        for index in 0..<flaky { add("/flaky/\(tag)-\(index)?times=1&retry_after=2&seed=\(tag)-flaky-\(index)", .flaky(seed: "\(tag)-flaky-\(index)")) }
        paths += paths.prefix(photos).shuffled(using: &random).prefix(repeats)
        self.kinds = kinds
        lines = paths.shuffled(using: &random).map(server.url)
    }

    /// Writes the list to DIR/list.txt; its path.
    func write(in folder: URL) throws -> String {
        let file = folder.appendingPathComponent("list.txt")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}
