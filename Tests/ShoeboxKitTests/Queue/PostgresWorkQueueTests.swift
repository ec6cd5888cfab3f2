import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// PostgresWorkQueue against a real PostgreSQL 15 server on 127.0.0.1 (one per class, a
/// fresh database per test): the `WorkQueue` contract shared with InMemoryWorkQueue, then
/// what only a server has (schema beside the catalog, plans, a terminated loader, scale).
final class PostgresWorkQueueTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private var server: PostgresServer!
    private var uri = ""

    override func setUpWithError() throws {
        guard PostgresServer.isAvailable else {
            throw XCTSkip("PostgreSQL 15 is not installed (bash .ci/install-deps installs it)")
        }
        server = try Self.postgres.running()
        uri = try server.makeDatabase()
    }

    private var contract: WorkQueueContract {
        let uri = uri
        return WorkQueueContract(open: { try PostgresWorkQueue(uri: uri) }, pause: { Thread.sleep(forTimeInterval: $0) })
    }

    private var database: String { String(uri.split(separator: "/").last ?? "") }

    @discardableResult
    private func psql(_ sql: String) throws -> String { try server.psql(sql, database: database) }

    // MARK: The contract shared with InMemoryWorkQueue

    func testLoadQueuesDistinctURLsInOrder() throws { try contract.checkLoadQueuesDistinctURLsInOrder() }
    func testURLSharedByTwoListsIsQueuedOnce() throws { try contract.checkURLSharedByTwoListsIsQueuedOnce() }
    func testRefusals() throws { try contract.checkRefusals() }
    func testOddURLsRoundTrip() throws { try contract.checkOddURLsRoundTrip() }
    func testConcurrentLoadersLoadOnce() throws { try contract.checkConcurrentLoadersLoadOnce() }
    func testKilledLoaderIsResumed() throws { try contract.checkKilledLoaderIsResumed() }
    func testLoadingElsewhereIsClaimable() throws { try contract.checkLoadingElsewhereIsClaimable() }
    func testCloseStopsAWaitingLoader() throws { try contract.checkCloseStopsAWaitingLoader() }
    func testConcurrentClaimersShareTheList() throws { try contract.checkConcurrentClaimersShareTheList() }
    func testExpiredLeaseIsTakenOver() throws { try contract.checkExpiredLeaseIsTakenOver() }
    func testKilledWorkerDropsOutOfStatus() throws { try contract.checkKilledWorkerDropsOutOfStatus() }
    func testReopen() throws { try contract.checkReopen() }
    func testRenewKeepsItems() throws { try contract.checkRenewKeepsItems() }
    func testRenewerKeepsLeasesWhileRunning() throws { try contract.checkRenewerKeepsLeasesWhileRunning() }
    func testRetryLaterWaitsItsDelay() throws { try contract.checkRetryLaterWaitsItsDelay() }
    func testReleaseReturnsItemsAtOnce() throws { try contract.checkReleaseReturnsItemsAtOnce() }
    func testStatusCountsAfterAScript() throws { try contract.checkStatusCountsAfterAScript() }

    // MARK: What only a server has

    /// The queue's tables go beside a catalog's: a fresh database gets both (the catalog at
    /// its own version, untouched), a catalog made first gets the queue added, and a queue
    /// written by a newer shoebox is refused.
    func testSchemaLivesBesideTheCatalog() throws {
        let queue = try PostgresWorkQueue(uri: uri)
        queue.close()
        XCTAssertEqual(try psql("SELECT value FROM meta WHERE key = 'schema_version'"), String(PostgresCatalog.schemaVersion))
        XCTAssertEqual(try psql("SELECT value FROM meta WHERE key = 'work_queue_schema_version'"), "1")
        try PostgresCatalog(uri: uri).close()
        XCTAssertEqual(
            try psql("SELECT count(*) FROM pg_tables WHERE tablename IN ('work_lists', 'work_items', 'work_workers', 'work_tallies')"),
            "4")

        let other = try server.makeDatabase()
        try PostgresCatalog(uri: other).close()
        try PostgresWorkQueue(uri: other).close()
        let otherName = String(other.split(separator: "/").last ?? "")
        XCTAssertEqual(try server.psql("SELECT value FROM meta WHERE key = 'work_queue_schema_version'", database: otherName), "1")

        try psql("UPDATE meta SET value = '2' WHERE key = 'work_queue_schema_version'")
        XCTAssertThrowsError(try PostgresWorkQueue(uri: uri)) { error in
            XCTAssertEqual(error as? PostgresError, .schemaTooNew(server: "127.0.0.1:\(server.port) (database \(database), user postgres)", found: 2, supported: 1))
        }
    }

    /// Several processes opening a fresh database at once all succeed and make it once.
    func testConcurrentFirstOpensAllSucceed() throws {
        let uri = uri
        let errors = WorkQueueContract.concurrently(4) { _ in try PostgresWorkQueue(uri: uri).close() }
        XCTAssertEqual(errors, [])
        XCTAssertEqual(try psql("SELECT count(*) FROM meta WHERE key = 'work_queue_schema_version'"), "1")
    }

    /// Two loaders on two connections: the rows are there once each, checked with psql.
    func testConcurrentLoadersLeaveNoDuplicateRows() throws {
        let queues = [try PostgresWorkQueue(uri: uri), try PostgresWorkQueue(uri: uri)]
        defer { for queue in queues { queue.close() } }
        let list = WorkQueueContract.list("rows")
        let entries = WorkQueueContract.entries(30_000, duplicateEvery: 5)
        let errors = WorkQueueContract.concurrently(2) { index in
            try queues[index].load(list: list, entries: entries, batchSize: 2_000, wait: true)
        }
        XCTAssertEqual(errors, [])
        XCTAssertEqual(try psql("SELECT count(*) || ' ' || count(DISTINCT url) FROM work_items"), "24000 24000")
        XCTAssertEqual(try psql("SELECT items || ' ' || urls_offered || ' ' || state FROM work_lists"), "24000 30000 loaded")
        XCTAssertEqual(try psql("SELECT count(*) FROM work_items WHERE state <> 'waiting' OR not_before IS NOT NULL"), "0")
    }

    /// The server ends the loader's session midway (as when its machine vanishes and the
    /// keepalives give up): the load fails with connectionLost, the lock is free, and the same
    /// instance reconnects and finishes the list on the next call.
    func testLoaderWhoseSessionEndsIsResumedAfterReconnecting() throws {
        let queue = try PostgresWorkQueue(uri: uri)
        defer { queue.close() }
        let list = WorkQueueContract.list("terminated")
        let entries = WorkQueueContract.entries(6_000)
        let killAt = entries[3_500].line
        let database = database
        let server = server!
        let dying = entries.lazy.map { entry -> (line: Int, url: String) in
            if entry.line == killAt {
                _ = try? server.psql(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = \(PostgresWorkQueueSchema.loadLockNamespace)",
                    database: database)
            }
            return entry
        }
        XCTAssertThrowsError(try queue.load(list: list, entries: dying, batchSize: 1_000, wait: true)) { error in
            guard case .connectionLost = error as? PostgresError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try psql("SELECT count(*) FROM work_items"), "3000")
        XCTAssertEqual(try psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"), "0")
        let report = try queue.load(list: list, entries: entries, batchSize: 1_000, wait: true)
        XCTAssertEqual(report.outcome, .loaded)
        XCTAssertEqual(report.resumedAfterLine, entries[2_999].line)
        XCTAssertEqual(report.itemsAdded, 3_000)
        XCTAssertEqual(try psql("SELECT count(*) || ' ' || min(line) || ' ' || max(line) FROM work_items"), "6000 1 11999")
    }

    /// Two lists sharing URLs in opposite orders, loaded at once: their batches may deadlock on
    /// the URL index; the victim's batch is repeated and both lists load.
    func testListsSharingURLsLoadAtOnce() throws {
        let queues = [try PostgresWorkQueue(uri: uri), try PostgresWorkQueue(uri: uri)]
        defer { for queue in queues { queue.close() } }
        let urls = (0..<20_000).map { "http://shared/\($0).jpg" }
        let lists = [WorkQueueContract.list("forward"), WorkQueueContract.list("backward")]
        let orders = [urls, urls.reversed()]
        let errors = WorkQueueContract.concurrently(2) { index in
            let entries = orders[index].enumerated().map { (line: $0.offset + 1, url: $0.element) }
            try queues[index].load(list: lists[index], entries: entries, batchSize: 5_000, wait: true)
        }
        XCTAssertEqual(errors, [])
        XCTAssertEqual(try psql("SELECT count(*) || ' ' || count(DISTINCT url) FROM work_items"), "20000 20000")
        XCTAssertEqual(try psql("SELECT sum(items) || ' ' || sum(urls_offered) FROM work_lists"), "20000 40000")
        let totals = try lists.map { try XCTUnwrap(try queues[0].status(list: $0)).total }
        XCTAssertEqual(totals.reduce(0, +), 20_000)
    }

    /// A 200,000-URL list loads in batches (the rate is printed, not asserted: speed belongs
    /// in bench/), and claims keep using the partial indexes in the plan a prepared statement
    /// settles on: no sequential scan of work_items.
    func testLargeListLoadsInBatchesAndClaimsStayIndexed() throws {
        let queue = try PostgresWorkQueue(uri: uri)
        defer { queue.close() }
        let list = WorkQueueContract.list("large")
        let count = 200_000
        let entries = (0..<count).lazy.map {
            (line: $0 + 1, url: "https://images.example.com/photos/2024/05/\($0 % 997)/IMG_\(String($0, radix: 16))_original.jpg?size=full")
        }
        let started = Date()
        let report = try queue.load(list: list, entries: entries, batchSize: 5_000, wait: true)
        let seconds = Date().timeIntervalSince(started)
        print("loaded \(count) URLs in \(String(format: "%.2f", seconds)) s: \(Int(Double(count) / seconds)) URLs/s")
        XCTAssertEqual(report.itemsAdded, count)

        // Some of every state, then fresh statistics.
        let worker = WorkerIdentity(id: "big", host: "h", pid: 1)
        let claimed = try queue.claim(worker: worker, list: list, limit: 1_000, lease: 60)
        XCTAssertEqual(claimed.map(\.line), Array(1...1_000))
        try queue.complete(worker: worker, items: claimed[0..<500].map { WorkCompletion(id: $0.id, outcome: "stored") })
        for item in claimed[500..<600] { try queue.retryLater(worker: worker, item: item.id, delay: 3_600, reason: "503") }
        try psql("ANALYZE work_items")

        let claimSQL = PostgresWorkQueueSchema.claim
        let plan = try psql(
            "SET plan_cache_mode = force_generic_plan; "
                + "PREPARE claim_plan (text, text, bigint, bigint, bigint, double precision) AS \(claimSQL); "
                + "EXPLAIN EXECUTE claim_plan ('big', 'h', 1, 1, 100, 60)")
        for index in ["work_items_leases", "work_items_retry", "work_items_fresh"] {
            XCTAssertTrue(plan.contains(index), "claim plan uses \(index):\n\(plan)")
        }
        XCTAssertFalse(plan.contains("Seq Scan on work_items"), plan)
        XCTAssertTrue(plan.contains("Index Scan using work_items_pkey on work_items item"), plan)

        let completePlan = try psql(
            "SET plan_cache_mode = force_generic_plan; "
                + "PREPARE complete_plan (text, bigint[], text[]) AS \(PostgresWorkQueueSchema.complete); "
                + "EXPLAIN EXECUTE complete_plan ('big', '{1,2,3}', '{a,b,c}')")
        XCTAssertFalse(completePlan.contains("Seq Scan on work_items"), completePlan)
        for statement in [PostgresWorkQueueSchema.renew, PostgresWorkQueueSchema.release] {
            let parameters = statement == PostgresWorkQueueSchema.renew ? "(text, text, bigint, double precision)" : "(text)"
            let values = statement == PostgresWorkQueueSchema.renew ? "('big', 'h', 1, 60)" : "('big')"
            let plan = try psql(
                "SET plan_cache_mode = force_generic_plan; PREPARE p \(parameters) AS \(statement); EXPLAIN EXECUTE p \(values)")
            XCTAssertTrue(plan.contains("work_items_holder"), plan)
        }

        let statusPlan = try psql(
            "SET plan_cache_mode = force_generic_plan; "
                + "PREPARE status_plan (text) AS \(PostgresWorkQueueSchema.status); EXPLAIN EXECUTE status_plan ('x')")
        XCTAssertFalse(statusPlan.contains("Seq Scan on work_items"), statusPlan)

        var timer = Date()
        let fast = try XCTUnwrap(try queue.status(list: list, exact: false))
        let fastSeconds = Date().timeIntervalSince(timer)
        timer = Date()
        let exact = try XCTUnwrap(try queue.status(list: list, exact: true))
        let exactSeconds = Date().timeIntervalSince(timer)
        print(String(format: "status of %d items: %.1f ms from tallies, %.1f ms counted", count, fastSeconds * 1000, exactSeconds * 1000))
        XCTAssertEqual(
            [fast.total, fast.done, fast.failed, fast.claimed, fast.waiting, fast.waitingForRetry],
            [exact.total, exact.done, exact.failed, exact.claimed, exact.waiting, exact.waitingForRetry])
        XCTAssertEqual(fast.done, 500)
        XCTAssertEqual(fast.waitingForRetry, 100)
        XCTAssertEqual(fast.claimed, 400)
        XCTAssertEqual(fast.waiting, count - 1_000)

        let next = try queue.claim(worker: worker, list: list, limit: 3, lease: 60)
        XCTAssertEqual(next.map(\.line), [1_001, 1_002, 1_003])
    }

    // MARK: PostgresValue.textArray, the text[] literal of the batches and of the catalog's
    // batched source lookups, read back by the server

    static let oddStrings = [
        "", "plain", "quote\"d", "back\\slash", "\"\u{301}", "\\\u{301}", "{braces},comma", "NULL", "null", " spaces ",
        "tab\tnew\nline", "été", "e\u{301}te\u{301}", "☃🐈", String(repeating: "x", count: 10_000),
    ]

    func testElementsComeBackByteForByte() throws {
        let connection = try PostgresConnection(uri: try PostgresURI(uri))
        defer { connection.close() }
        let back = try connection.query(
            "SELECT element FROM unnest($1::text[]) WITH ORDINALITY AS t (element, n) ORDER BY n", [.textArray(Self.oddStrings)]
        ) { $0.string(0) }
        XCTAssertEqual(back.map { $0.map { Array($0.utf8) } }, Self.oddStrings.map { Array($0.utf8) })
        XCTAssertEqual(
            try connection.query("SELECT cardinality($1::text[])", [.textArray([])]) { $0.int(0) }, [0])
        XCTAssertEqual(
            try connection.query("SELECT array_to_string($1::bigint[], ',')", [.integerArray([1, -2, Int64.max])]) {
                $0.string(0)
            }, ["1,-2,\(Int64.max)"])
    }

    /// The catalog's batched lookup finds sources whose URLs hold a quote before a combining
    /// mark (its literal was built with Foundation's replacingOccurrences, which skipped it).
    func testCatalogBatchedLookupFindsOddURLs() throws {
        let catalog = try PostgresCatalog(uri: uri)
        defer { catalog.close() }
        let urls = ["http://h/\"\u{301}", "http://h/\\", "http://h/plain"]
        for url in urls {
            try catalog.upsertSource(
                SourceRecord(
                    url: url, finalURL: nil, sha256: nil, etag: nil, lastModified: nil, httpStatus: 404,
                    fetchedAt: "2026-12-02T00:00:00Z", outcome: .failed, reason: "HTTP 404"))
        }
        let found = try catalog.sources(urls: urls + ["http://h/absent"])
        XCTAssertEqual(Set(found.keys.map { Array($0.utf8) }), Set(urls.map { Array($0.utf8) }))
    }

    /// The queue alone (no transfers): 1, 2 and 4 workers, one connection each, claiming 100
    /// and completing them in one call until 20,000 items are done; the rate is printed (a
    /// measurement for bench/ and the scale plan, not asserted), the bookkeeping asserted.
    func testClaimAndCompleteThroughput() throws {
        let loader = try PostgresWorkQueue(uri: uri)
        defer { loader.close() }
        for workers in [1, 2, 4] {
            let list = WorkQueueContract.list("throughput \(workers)")
            let count = 20_000
            try loader.load(list: list, entries: WorkQueueContract.entries(count, prefix: "http://t\(workers)/"), batchSize: 5_000, wait: true)
            let queues = try (0..<workers).map { _ in try PostgresWorkQueue(uri: uri) }
            defer { for queue in queues { queue.close() } }
            let calls = Collected<Int>()
            let started = Date()
            let errors = WorkQueueContract.concurrently(workers) { index in
                let me = WorkerIdentity(id: "t\(workers)-\(index)", host: "h", pid: index)
                var made = 0
                while true {
                    let items = try queues[index].claim(worker: me, list: list, limit: 100, lease: 60)
                    made += 1
                    if items.isEmpty { break }
                    let done = try queues[index].complete(worker: me, items: items.map { WorkCompletion(id: $0.id, outcome: "stored") })
                    made += 1
                    XCTAssertEqual(done.count, items.count)
                }
                calls.add(made)
            }
            let seconds = Date().timeIntervalSince(started)
            XCTAssertEqual(errors, [])
            let status = try XCTUnwrap(try loader.status(list: list, exact: true))
            XCTAssertEqual(status.done, count)
            let roundTrips = calls.values.reduce(0, +)
            print(String(
                format: "queue throughput, %d worker(s), batches of 100: %.0f items/s, %.3f round trips per item",
                workers, Double(count) / seconds, Double(roundTrips) / Double(count)))
        }
    }
}
