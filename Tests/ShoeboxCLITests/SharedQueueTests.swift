import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// Several `shoebox fetch` workers on one list through a shared catalog (a real PostgreSQL 15,
/// one server per test: some tests stop it) and the fixture server, all on 127.0.0.1: each URL
/// recorded once, a killed worker's share taken over, retries shared, a database that goes
/// away for 10 s ridden out, and `shoebox status`.
final class SharedQueueTests: XCTestCase {
    nonisolated(unsafe) static var fixtures: FixtureServer?
    nonisolated(unsafe) static var startError: Error?

    override class func setUp() {
        super.setUp()
        do {
            fixtures = try FixtureServer()
        } catch {
            startError = error
        }
    }

    override class func tearDown() {
        fixtures?.stop()
        fixtures = nil
        super.tearDown()
    }

    private var server: FixtureServer!
    private var postgres: PostgresServer!
    private var uri = ""
    private var work: URL!
    private var library: String { work.appendingPathComponent("library").path }

    override func setUpWithError() throws {
        if let error = Self.startError { throw error }
        server = try XCTUnwrap(Self.fixtures)
        postgres = try PostgresServer()
        let started = postgres!
        addTeardownBlock { started.stop() }
        uri = try postgres.makeDatabase()
        work = try makeTemporaryDirectory(self)
    }

    private func writeList(_ urls: [String], name: String = "list.txt") throws -> String {
        let list = work.appendingPathComponent(name)
        try (urls.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        return list.path
    }

    private func key(_ name: String) -> String { name + "-" + UUID().uuidString.prefix(8).lowercased() }

    private func worker(_ list: String, _ extra: [String] = []) throws -> (Process, Pipe, Pipe) {
        try ShoeboxProcess.start(["fetch", list, "-L", library, "--catalog", uri, "--json", "-j", "4"] + extra)
    }

    /// Rows in the catalog; (0, 0) before a worker has made its tables.
    private func counts() throws -> (originals: Int, sources: Int) {
        guard try postgres.psql("SELECT to_regclass('sources') IS NOT NULL", database: database) == "t" else { return (0, 0) }
        return (Int(try postgres.psql("SELECT count(*) FROM originals", database: database)) ?? -1,
                Int(try postgres.psql("SELECT count(*) FROM sources", database: database)) ?? -1)
    }

    private var database: String { String(uri.split(separator: "/").last ?? "") }

    /// Every JSON result line of a worker's output.
    private func results(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    func testThreeWorkersShareOneListAndAKilledWorkersShareIsTakenOver() throws {
        let keys = (1...60).map { key("q\($0)") }
        let list = try writeList(keys.map { server.url("/photo/\($0)?delay=0.1") })
        let workers = try (0..<3).map { _ in try worker(list, ["--lease", "3"]) }
        // Let them all claim, then kill one without a word.
        let deadline = Date().addingTimeInterval(30)
        while try counts().sources < 8 && Date() < deadline { usleep(100_000) }
        kill(workers[0].0.processIdentifier, SIGKILL)
        workers[0].0.waitUntilExit()
        var outputs: [ShoeboxProcess.Result] = []
        for survivor in workers.dropFirst() {
            XCTAssertTrue(ShoeboxProcess.waitForExit(survivor.0, timeout: 120), "a worker did not finish")
            outputs.append(ShoeboxProcess.waitCapturing(survivor.0, out: survivor.1, err: survivor.2))
        }
        for output in outputs { XCTAssertEqual(output.status, 0, output.stderr) }
        let (originals, sources) = try counts()
        XCTAssertEqual(originals, 60, "every URL archived, once")
        XCTAssertEqual(sources, 60)
        // Requests: one per URL, except those the killed worker held when it died (fetched
        // again by the others once its lease ran out): at most one claim batch (16).
        var repeated = 0
        for key in keys {
            let requests = try server.requestTimes(key).count
            XCTAssertGreaterThanOrEqual(requests, 1)
            if requests > 1 { repeated += 1 }
        }
        XCTAssertLessThanOrEqual(repeated, 16, "only the dead worker's claims are fetched twice")
        let survivorsStored = outputs.flatMap { results($0.stdout) }.filter { ($0["outcome"] as? String) == "stored" }.count
        XCTAssertGreaterThan(survivorsStored, 0)
        // Each survivor did part of the work: the list was shared, not done twice.
        for output in outputs {
            XCTAssertLessThan(results(output.stdout).count, 60, "a worker fetched the whole list: \(output.stderr)")
        }

        let status = try ShoeboxProcess.run(["status", list, "--catalog", uri, "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        XCTAssertEqual(object["done"] as? Int, 60, status.stdout)
        XCTAssertEqual(object["failed"] as? Int, 0, status.stdout)
        let readable = try ShoeboxProcess.run(["status", list, "--catalog", uri])
        XCTAssertEqual(readable.status, 0, readable.stderr)
        XCTAssertTrue(readable.stdout.contains("60"), readable.stdout)
    }

    func testA503WithRetryAfterIsRetriedAfterItsWaitByWhicheverWorkerIsFree() throws {
        let flaky = key("flaky")
        let others = (1...6).map { key("o\($0)") }
        let list = try writeList([server.url("/flaky/\(flaky)?times=1&retry_after=6")] + others.map { server.url("/photo/\($0)") })
        let a = try worker(list)
        let b = try worker(list)
        let resultA = ShoeboxProcess.waitCapturing(a.0, out: a.1, err: a.2)
        let resultB = ShoeboxProcess.waitCapturing(b.0, out: b.1, err: b.2)
        XCTAssertEqual(resultA.status, 0, resultA.stderr)
        XCTAssertEqual(resultB.status, 0, resultB.stderr)
        let times = try server.requestTimes("flaky/" + flaky)
        XCTAssertEqual(times.count, 2, "one 503, then one retry")
        if times.count == 2 { XCTAssertGreaterThanOrEqual(times[1] - times[0], 5.9, "retried after its Retry-After, not before") }
        let stored = results(resultA.stdout + resultB.stdout).filter { ($0["url"] as? String)?.contains(flaky) == true }
        XCTAssertEqual(stored.map { $0["outcome"] as? String }, ["stored"], "reported once, as stored: \(stored)")
        XCTAssertEqual(try counts().originals, 7)
    }

    func testADatabaseGoneForTenSecondsIsWaitedForAndTheListFinishes() throws {
        let keys = (1...40).map { key("pg\($0)") }
        let list = try writeList(keys.map { server.url("/photo/\($0)?delay=0.15") })
        let a = try worker(list)
        let deadline = Date().addingTimeInterval(30)
        while try counts().sources < 5 && Date() < deadline { usleep(100_000) }
        try postgres.pause()
        sleep(10)
        try postgres.resume()
        let result = ShoeboxProcess.waitCapturing(a.0, out: a.1, err: a.2)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("did not answer"), "the wait is said: \(result.stderr)")
        let (originals, sources) = try counts()
        XCTAssertEqual(originals, 40)
        XCTAssertEqual(sources, 40)
        // Nothing stored twice: one file per original.
        let files = (FileManager.default.enumerator(atPath: library + "/originals")?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(files.count, 40)
    }

    func testADatabaseThatStaysAwayStopsTheWorkerWithExitStatusFiveAndARerunFinishes() throws {
        let keys = (1...30).map { key("gone\($0)") }
        let list = try writeList(keys.map { server.url("/photo/\($0)?delay=0.1") })
        // A short bound for the test: the default is 60 s.
        let a = try ShoeboxProcess.start(["fetch", list, "-L", library, "--catalog", uri, "-j", "4", "--lease", "3"],
                                         environment: ["SHOEBOX_CATALOG_RETRY_SECONDS": "3"])
        let deadline = Date().addingTimeInterval(30)
        while try counts().sources < 5 && Date() < deadline { usleep(100_000) }
        try postgres.pause()
        let stopped = ShoeboxProcess.waitCapturing(a.0, out: a.1, err: a.2)
        XCTAssertEqual(stopped.status, 5, stopped.stderr)
        try postgres.resume()
        let rerun = try ShoeboxProcess.run(["fetch", list, "-L", library, "--catalog", uri, "-j", "4", "--lease", "3"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(try counts().originals, 30)
    }
}
