import Foundation
import ShoeboxKit
import XCTest

/// The behaviour every `WorkQueue` owes its callers, as assertions run against any of them
/// (PostgresWorkQueue, InMemoryWorkQueue): the fake is held to the real thing's contract.
///
/// `open` opens a new connection to one fresh, empty queue (each call another connection to
/// the same queue: a worker on another machine). `pause` lets the queue's clock move on by
/// that many seconds (a real sleep for PostgreSQL, an advanced clock for the fake).
struct WorkQueueContract {
    let open: () throws -> WorkQueue
    let pause: (Double) -> Void

    // MARK: Lists

    /// `count` entries on lines 1, 3, 5… with every `duplicateEvery`-th URL repeating an earlier one.
    static func entries(_ count: Int, prefix: String = "http://h/img", duplicateEvery: Int = 0) -> [(line: Int, url: String)] {
        (0..<count).map { index in
            let n = duplicateEvery > 1 && index % duplicateEvery == duplicateEvery - 1 ? index - 1 : index
            return (line: 2 * index + 1, url: "\(prefix)\(n).jpg")
        }
    }

    static func list(_ name: String) -> ListIdentity { ListIdentity.ofBytes(Array(name.utf8), name: name + ".txt") }

    static func worker(_ name: String) -> WorkerIdentity { WorkerIdentity(id: "w-\(name)-\(UUID().uuidString.prefix(8))", host: "host-\(name)", pid: 100) }

    /// Claims until nothing is claimable, completing each batch; returns every item seen.
    @discardableResult
    static func drain(_ queue: WorkQueue, _ worker: WorkerIdentity, _ list: ListIdentity, batch: Int = 10) throws -> [WorkItem] {
        var seen: [WorkItem] = []
        while true {
            let items = try queue.claim(worker: worker, list: list, limit: batch, lease: 60)
            if items.isEmpty { return seen }
            seen += items
            try queue.complete(worker: worker, items: items.map { WorkCompletion(id: $0.id, outcome: "stored") })
        }
    }

    /// Runs `body(index)` on `count` threads started together; returns the errors thrown.
    static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
        let errors = Collected<String>()
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                start.wait()
                do { try body(index) } catch { errors.add("thread \(index): \(error)") }
                group.leave()
            }.start()
        }
        for _ in 0..<count { start.signal() }
        group.wait()
        return errors.values
    }

    private func assertSums(_ status: QueueStatus, file: StaticString, line: UInt) {
        XCTAssertEqual(
            status.total, status.done + status.failed + status.claimed + status.waiting + status.waitingForRetry,
            "every item in exactly one state: \(status)", file: file, line: line)
    }

    // MARK: Checks

    /// Loading queues each distinct URL once, in list order; a second load is a no-op; a claim
    /// hands the items out in line order with what was listed.
    func checkLoadQueuesDistinctURLsInOrder(file: StaticString = #filePath, line: UInt = #line) throws {
        let queue = try open()
        defer { queue.close() }
        let list = Self.list("order")
        let entries = Self.entries(1_000, duplicateEvery: 10)
        let distinct = Set(entries.map(\.url))
        XCTAssertEqual(distinct.count, 900)
        let report = try queue.load(list: list, entries: entries, batchSize: 64, wait: true)
        XCTAssertEqual(report.outcome, .loaded, file: file, line: line)
        XCTAssertEqual(report.urlsOffered, 1_000, file: file, line: line)
        XCTAssertEqual(report.itemsAdded, 900, file: file, line: line)
        XCTAssertEqual(report.resumedAfterLine, 0, file: file, line: line)

        let again = try queue.load(list: list, entries: entries, batchSize: 64, wait: true)
        XCTAssertEqual(again.outcome, .alreadyLoaded, file: file, line: line)
        XCTAssertEqual(again.itemsAdded, 0, file: file, line: line)

        let status = try XCTUnwrap(try queue.status(list: list), file: file, line: line)
        XCTAssertEqual(status.total, 900, file: file, line: line)
        XCTAssertEqual(status.waiting, 900, file: file, line: line)
        XCTAssertEqual(status.urlsOffered, 1_000, file: file, line: line)
        XCTAssertEqual(status.linesLoaded, 1_999, file: file, line: line)
        XCTAssertTrue(status.loaded, file: file, line: line)
        XCTAssertFalse(status.isFinished, file: file, line: line)

        let worker = Self.worker("a")
        let first = try queue.claim(worker: worker, list: list, limit: 5, lease: 60)
        XCTAssertEqual(first.map(\.line), [1, 3, 5, 7, 9], file: file, line: line)
        XCTAssertEqual(first.map(\.url), (0..<5).map { "http://h/img\($0).jpg" }, file: file, line: line)
        XCTAssertEqual(first.map(\.attempts), [0, 0, 0, 0, 0], file: file, line: line)
        XCTAssertEqual(first.map(\.claims), [1, 1, 1, 1, 1], file: file, line: line)
        try queue.complete(worker: worker, items: first.map { WorkCompletion(id: $0.id, outcome: "stored") })
        let rest = try Self.drain(queue, worker, list, batch: 50)
        let all = first + rest
        XCTAssertEqual(all.count, 900, file: file, line: line)
        XCTAssertEqual(Set(all.map(\.url)), distinct, file: file, line: line)
        XCTAssertEqual(all.map(\.line), all.map(\.line).sorted(), "fresh items go out in list order", file: file, line: line)
        let done = try XCTUnwrap(try queue.status(list: list), file: file, line: line)
        XCTAssertEqual(done.done, 900, file: file, line: line)
        XCTAssertTrue(done.isFinished, file: file, line: line)
        XCTAssertNil(try queue.status(list: Self.list("never loaded")), file: file, line: line)
    }

    /// A URL in two lists is one item, owned by the list that queued it first.
    func checkURLSharedByTwoListsIsQueuedOnce(file: StaticString = #filePath, line: UInt = #line) throws {
        let queue = try open()
        defer { queue.close() }
        let first = Self.list("first"), second = Self.list("second")
        try queue.load(list: first, entries: [(line: 1, url: "http://h/a"), (line: 2, url: "http://h/b")], batchSize: 10, wait: true)
        let report = try queue.load(list: second, entries: [(line: 1, url: "http://h/b"), (line: 2, url: "http://h/c")], batchSize: 10, wait: true)
        XCTAssertEqual(report.itemsAdded, 1, file: file, line: line)
        let status = try XCTUnwrap(try queue.status(list: second), file: file, line: line)
        XCTAssertEqual(status.total, 1, file: file, line: line)
        XCTAssertEqual(status.urlsOffered, 2, file: file, line: line)
        let claimed = try queue.claim(worker: Self.worker("a"), list: second, limit: 10, lease: 60)
        XCTAssertEqual(claimed.map(\.url), ["http://h/c"], file: file, line: line)
    }

    /// URLs with what an array literal or a C string could mangle come back byte for byte,
    /// and ones that differ only by a byte (case, a composed accent) are two items.
    func checkOddURLsRoundTrip(file: StaticString = #filePath, line: UInt = #line) throws {
        let queue = try open()
        defer { queue.close() }
        let list = Self.list("odd")
        let odd = [
            "http://h/quote\"d", "http://h/back\\slash", "http://h/\"\u{301}combining", "http://h/{braces},comma",
            "http://h/sp ace", "NULL", "http://h/été", "http://h/e\u{301}te\u{301}", "http://h/ÉTÉ", "http://h/☃🐈",
            "http://h/" + String(repeating: "long/", count: 1_000), "http://h/'single'", "http://h/tab\tline",
        ]
        XCTAssertEqual(Set(odd).count, odd.count - 1, "é and e + U+0301 are one Swift string…", file: file, line: line)
        XCTAssertEqual(Set(odd.map { Array($0.utf8) }).count, odd.count, "…but different bytes", file: file, line: line)
        let report = try queue.load(
            list: list, entries: odd.enumerated().map { (line: $0.offset + 1, url: $0.element) }, batchSize: 5, wait: true)
        XCTAssertEqual(report.itemsAdded, odd.count, file: file, line: line)
        let items = try queue.claim(worker: Self.worker("o"), list: list, limit: 100, lease: 60)
        XCTAssertEqual(items.map { Array($0.url.utf8) }, odd.map { Array($0.utf8) }, file: file, line: line)
        XCTAssertEqual(items.map(\.line), Array(1...odd.count), file: file, line: line)
    }

    /// Out-of-order lines and impossible URLs are the caller's bug, refused; claims on an
    /// unknown list too.
    func checkRefusals(file: StaticString = #filePath, line: UInt = #line) throws {
        let queue = try open()
        defer { queue.close() }
        let list = Self.list("refusals")
        XCTAssertThrowsError(
            try queue.load(list: list, entries: [(line: 2, url: "http://h/a"), (line: 2, url: "http://h/b")], batchSize: 10, wait: true),
            file: file, line: line
        ) { XCTAssertEqual($0 as? WorkQueueError, .linesOutOfOrder(previous: 2, line: 2), file: file, line: line) }
        XCTAssertThrowsError(
            try queue.load(list: Self.list("nul"), entries: [(line: 1, url: "http://h/\u{0}")], batchSize: 10, wait: true),
            file: file, line: line
        ) { XCTAssertEqual($0 as? WorkQueueError, .invalidURL(line: 1), file: file, line: line) }
        XCTAssertThrowsError(
            try queue.claim(worker: Self.worker("a"), list: Self.list("unknown"), limit: 1, lease: 10), file: file, line: line
        ) { XCTAssertEqual($0 as? WorkQueueError, .unknownList(Self.list("unknown")), file: file, line: line) }
    }

    /// Several loaders of one list at once (one connection each, on threads): one loads it,
    /// the others find it loaded; every URL is there once.
    func checkConcurrentLoadersLoadOnce(loaders: Int = 3, file: StaticString = #filePath, line: UInt = #line) throws {
        let queues = try (0..<loaders).map { _ in try open() }
        defer { for queue in queues { queue.close() } }
        let list = Self.list("concurrent load")
        let entries = Self.entries(20_000, duplicateEvery: 7)
        let distinct = Set(entries.map(\.url))
        let outcomes = Collected<QueueLoadReport>()
        let errors = Self.concurrently(loaders) { index in
            outcomes.add(try queues[index].load(list: list, entries: entries, batchSize: 500, wait: true))
        }
        XCTAssertEqual(errors, [], file: file, line: line)
        let reports = outcomes.values
        XCTAssertEqual(reports.filter { $0.outcome == .loaded }.count, 1, "\(reports)", file: file, line: line)
        XCTAssertEqual(reports.filter { $0.outcome == .alreadyLoaded }.count, loaders - 1, "\(reports)", file: file, line: line)
        XCTAssertEqual(reports.map(\.itemsAdded).reduce(0, +), distinct.count, file: file, line: line)
        let status = try XCTUnwrap(try queues[0].status(list: list), file: file, line: line)
        XCTAssertEqual(status.total, distinct.count, file: file, line: line)
        XCTAssertEqual(status.urlsOffered, entries.count, file: file, line: line)
        let items = try Self.drain(queues[1], Self.worker("d"), list, batch: 1_000)
        XCTAssertEqual(items.count, distinct.count, "no URL twice", file: file, line: line)
        XCTAssertEqual(Set(items.map(\.url)), distinct, file: file, line: line)
    }

    /// A loader killed midway (its connection dropped between batches) leaves the batches it
    /// committed and where it got to; the next loader continues from there and completes the list.
    func checkKilledLoaderIsResumed(file: StaticString = #filePath, line: UInt = #line) throws {
        let list = Self.list("killed loader")
        let entries = Self.entries(5_000)
        let victim = try open()
        let killAt = entries[2_500].line
        let dying = entries.lazy.map { entry -> (line: Int, url: String) in
            if entry.line == killAt { victim.close() }
            return entry
        }
        XCTAssertThrowsError(try victim.load(list: list, entries: dying, batchSize: 1_000, wait: true), file: file, line: line)

        let queue = try open()
        defer { queue.close() }
        let partial = try XCTUnwrap(try queue.status(list: list), file: file, line: line)
        XCTAssertFalse(partial.loaded, file: file, line: line)
        XCTAssertFalse(partial.loaderActive, "its loader is gone", file: file, line: line)
        XCTAssertEqual(partial.total, 2_000, "two batches committed", file: file, line: line)
        XCTAssertEqual(partial.linesLoaded, entries[1_999].line, file: file, line: line)
        // A worker that does not wait sees nobody loading now: it takes the load over.
        let report = try queue.load(list: list, entries: entries, batchSize: 1_000, wait: false)
        XCTAssertEqual(report.outcome, .loaded, file: file, line: line)
        XCTAssertEqual(report.resumedAfterLine, entries[1_999].line, file: file, line: line)
        XCTAssertEqual(report.urlsOffered, 3_000, "earlier lines are skipped, not sent", file: file, line: line)
        XCTAssertEqual(report.itemsAdded, 3_000, file: file, line: line)
        let status = try XCTUnwrap(try queue.status(list: list), file: file, line: line)
        XCTAssertTrue(status.loaded, file: file, line: line)
        XCTAssertEqual(status.total, 5_000, file: file, line: line)
        XCTAssertEqual(status.linesLoaded, entries.last?.line, file: file, line: line)
        let items = try Self.drain(queue, Self.worker("r"), list, batch: 500)
        XCTAssertEqual(Set(items.map(\.url)), Set(entries.map(\.url)), file: file, line: line)
        XCTAssertEqual(items.count, 5_000, file: file, line: line)
    }

    /// While one loader runs, a worker that does not wait is told so, and can already claim
    /// what the loader committed.
    func checkLoadingElsewhereIsClaimable(file: StaticString = #filePath, line: UInt = #line) throws {
        let loader = try open(), other = try open()
        defer { loader.close(); other.close() }
        let list = Self.list("loading elsewhere")
        let entries = Self.entries(3_000)
        let load = PausedLoad(loader, list, entries, pausingAt: 2_000)
        let report = try other.load(list: list, entries: entries, batchSize: 1_000, wait: false)
        XCTAssertEqual(report.outcome, .loadingElsewhere, file: file, line: line)
        let claimed = try other.claim(worker: Self.worker("early"), list: list, limit: 10, lease: 60)
        XCTAssertEqual(claimed.map(\.line), Array(entries[0..<10].map(\.line)), file: file, line: line)
        let status = try XCTUnwrap(try other.status(list: list), file: file, line: line)
        XCTAssertFalse(status.loaded, file: file, line: line)
        XCTAssertTrue(status.loaderActive, file: file, line: line)
        XCTAssertEqual(status.total, 2_000, file: file, line: line)
        XCTAssertEqual(load.finish().map(\.outcome), [.loaded], file: file, line: line)
        XCTAssertEqual(try other.status(list: list)?.total, 3_000, file: file, line: line)
        XCTAssertEqual(try other.status(list: list)?.loaderActive, false, file: file, line: line)
    }

    /// A loader waiting for another one is stopped by `close` from another thread (Ctrl-C
    /// while the list loads elsewhere), and the other loader is not disturbed.
    func checkCloseStopsAWaitingLoader(file: StaticString = #filePath, line: UInt = #line) throws {
        let loader = try open(), waiter = try open()
        defer { loader.close() }
        let list = Self.list("close waiter")
        let entries = Self.entries(3_000)
        let waiterErrors = Collected<String>()
        let load = PausedLoad(loader, list, entries, pausingAt: 1_500)
        let waiting = DispatchGroup()
        waiting.enter()
        Thread {
            do {
                _ = try waiter.load(list: list, entries: entries, batchSize: 1_000, wait: true)
                waiterErrors.add("returned")
            } catch {
                waiterErrors.add("\(error)")
            }
            waiting.leave()
        }.start()
        Thread.sleep(forTimeInterval: 0.3)
        let closedAt = Date()
        waiter.close()
        XCTAssertEqual(waiting.wait(timeout: .now() + 10), .success, "the waiter stopped", file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(closedAt), 5, file: file, line: line)
        XCTAssertEqual(waiterErrors.values, ["\(WorkQueueError.closed)"], file: file, line: line)
        XCTAssertEqual(load.finish().map(\.outcome), [.loaded], file: file, line: line)
        XCTAssertEqual(try loader.status(list: list)?.total, 3_000, file: file, line: line)
    }

    /// N workers (one connection each, on threads) claiming until the list is empty get
    /// disjoint batches that cover every item exactly once.
    func checkConcurrentClaimersShareTheList(workers: Int = 4, file: StaticString = #filePath, line: UInt = #line) throws {
        let loader = try open()
        defer { loader.close() }
        let list = Self.list("claimers")
        let entries = Self.entries(4_000)
        try loader.load(list: list, entries: entries, batchSize: 1_000, wait: true)
        let queues = try (0..<workers).map { _ in try open() }
        defer { for queue in queues { queue.close() } }
        let seen = Collected<(worker: Int, item: WorkItem)>()
        let errors = Self.concurrently(workers) { index in
            let me = Self.worker("c\(index)")
            for item in try Self.drain(queues[index], me, list, batch: 7) { seen.add((index, item)) }
        }
        XCTAssertEqual(errors, [], file: file, line: line)
        let items = seen.values.map(\.item)
        XCTAssertEqual(items.count, entries.count, "no item handed out twice", file: file, line: line)
        XCTAssertEqual(Set(items.map(\.id)).count, entries.count, file: file, line: line)
        XCTAssertEqual(Set(items.map(\.url)), Set(entries.map(\.url)), file: file, line: line)
        XCTAssertEqual(items.filter { $0.claims != 1 }.count, 0, file: file, line: line)
        let busy = Set(seen.values.map(\.worker))
        XCTAssertGreaterThan(busy.count, 1, "the work was shared", file: file, line: line)
        let status = try XCTUnwrap(try loader.status(list: list, exact: true), file: file, line: line)
        XCTAssertEqual(status.done, entries.count, file: file, line: line)
        XCTAssertTrue(status.isFinished, file: file, line: line)
        XCTAssertEqual(try loader.status(list: list, exact: false)?.done, entries.count, "tallies agree", file: file, line: line)
    }

    /// Items whose lease ran out go to the next claimer; their first holder's late results
    /// are refused. Before anyone takes them, the first holder still may finish them.
    func checkExpiredLeaseIsTakenOver(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open()
        defer { first.close(); second.close() }
        let list = Self.list("expired lease")
        try first.load(list: list, entries: Self.entries(6), batchSize: 10, wait: true)
        let a = Self.worker("a"), b = Self.worker("b")
        // Leases of a few seconds: a loaded CI machine may stall a second between two calls.
        let held = try first.claim(worker: a, list: list, limit: 6, lease: 2.5)
        XCTAssertEqual(held.count, 6, file: file, line: line)
        XCTAssertEqual(try second.claim(worker: b, list: list, limit: 10, lease: 30), [], "leases still live", file: file, line: line)

        pause(3)
        let expired = try XCTUnwrap(try second.status(list: list), file: file, line: line)
        XCTAssertEqual(expired.claimed, 0, file: file, line: line)
        XCTAssertEqual(expired.abandoned, 6, file: file, line: line)
        XCTAssertEqual(expired.waiting, 6, file: file, line: line)
        XCTAssertEqual(expired.workers.first { $0.id == a.id }?.leaseExpired, true, file: file, line: line)
        XCTAssertEqual(expired.workers.first { $0.id == a.id }?.claims, 6, file: file, line: line)
        // Not taken yet: the late holder may still finish one.
        XCTAssertEqual(
            try first.complete(worker: a, items: [WorkCompletion(id: held[0].id, outcome: "stored")]), [held[0].id],
            file: file, line: line)

        let taken = try second.claim(worker: b, list: list, limit: 3, lease: 30)
        XCTAssertEqual(Set(taken.map(\.id)), Set(held[1...3].map(\.id)), "expired leases first, oldest first", file: file, line: line)
        XCTAssertEqual(taken.map(\.claims), [2, 2, 2], file: file, line: line)
        let late = try first.complete(worker: a, items: held[1...].map { WorkCompletion(id: $0.id, outcome: "stored") })
        XCTAssertEqual(late, Set(held[4...].map(\.id)), "only what nobody took over", file: file, line: line)
        XCTAssertFalse(try first.fail(worker: a, item: held[1].id, reason: "late"), file: file, line: line)
        XCTAssertFalse(try first.retryLater(worker: a, item: held[2].id, delay: 0, reason: "late"), file: file, line: line)
        XCTAssertEqual(try first.renew(worker: a, lease: 30), [], "a holds nothing any more", file: file, line: line)
        XCTAssertEqual(try second.renew(worker: b, lease: 30), Set(taken.map(\.id)), file: file, line: line)
        XCTAssertEqual(
            try second.complete(worker: b, items: taken.map { WorkCompletion(id: $0.id, outcome: "duplicate") }),
            Set(taken.map(\.id)), file: file, line: line)
        let status = try XCTUnwrap(try second.status(list: list), file: file, line: line)
        XCTAssertEqual(status.done, 6, file: file, line: line)
        XCTAssertTrue(status.isFinished, file: file, line: line)
    }

    /// A finished list reopened: its failed items (a rerun), then all (a refresh), with tries
    /// counted afresh and the tallies following; never while a pass is under way, and once
    /// when two workers reopen together.
    func checkReopen(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open()
        defer { first.close(); second.close() }
        let list = Self.list("reopen")
        XCTAssertEqual(try first.reopen(list: list, .all), 0, "an unknown list", file: file, line: line)
        try first.load(list: list, entries: Self.entries(4), batchSize: 10, wait: true)
        XCTAssertEqual(try first.reopen(list: list, .all), 0, "nothing finished yet", file: file, line: line)
        let a = Self.worker("a")
        let held = try first.claim(worker: a, list: list, limit: 4, lease: 30)
        XCTAssertEqual(held.count, 4, file: file, line: line)
        XCTAssertEqual(try first.reopen(list: list, .failed), 0, "claimed: a pass under way", file: file, line: line)
        try first.complete(worker: a, items: held[0...2].map { WorkCompletion(id: $0.id, outcome: "stored") })
        XCTAssertTrue(try first.fail(worker: a, item: held[3].id, reason: "HTTP 404"), file: file, line: line)
        XCTAssertEqual(try first.status(list: list)?.isFinished, true, file: file, line: line)

        XCTAssertEqual(try first.reopen(list: list, .failed), 1, file: file, line: line)
        XCTAssertEqual(try second.reopen(list: list, .failed), 0, "reopened already: joined", file: file, line: line)
        var status = try XCTUnwrap(try second.status(list: list), file: file, line: line)
        XCTAssertEqual([status.done, status.failed, status.waiting], [3, 0, 1], file: file, line: line)
        let again = try second.claim(worker: a, list: list, limit: 4, lease: 30)
        XCTAssertEqual(again.map(\.id), [held[3].id], file: file, line: line)
        XCTAssertEqual(again.map(\.claims), [1], "tries counted afresh", file: file, line: line)
        XCTAssertEqual(again.map(\.attempts), [0], file: file, line: line)
        try second.complete(worker: a, items: again.map { WorkCompletion(id: $0.id, outcome: "stored") })

        // Two workers starting with --refresh at once: one reopens everything, the other joins.
        let reopened = Collected<Int>()
        let both = Self.concurrently(2) { index in reopened.add(try (index == 0 ? first : second).reopen(list: list, .all)) }
        XCTAssertEqual(both, [], file: file, line: line)
        XCTAssertEqual(reopened.values.sorted(), [0, 4], "reopened once", file: file, line: line)
        status = try XCTUnwrap(try first.status(list: list, exact: true), file: file, line: line)
        XCTAssertEqual([status.done, status.failed, status.waiting, status.total], [0, 0, 4, 4], file: file, line: line)
        XCTAssertEqual(try first.status(list: list)?.done, 0, "the tallies follow", file: file, line: line)
        XCTAssertEqual(Set(try Self.drain(first, a, list).map(\.id)), Set(held.map(\.id)), file: file, line: line)
    }

    /// A worker killed without `release` is listed with its lease run out, then drops out of
    /// `status` once `forgetWorkersAfter` has passed; a live worker stays.
    func checkKilledWorkerDropsOutOfStatus(file: StaticString = #filePath, line: UInt = #line) throws {
        let queue = try open()
        defer { queue.close() }
        let list = Self.list("killed worker")
        try queue.load(list: list, entries: Self.entries(2), batchSize: 10, wait: true)
        let a = Self.worker("a"), b = Self.worker("b")
        let held = try queue.claim(worker: a, list: list, limit: 1, lease: 1)
        XCTAssertEqual(try queue.complete(worker: a, items: held.map { WorkCompletion(id: $0.id, outcome: "stored") }).count, 1,
                       file: file, line: line)
        XCTAssertEqual(try queue.claim(worker: b, list: list, limit: 1, lease: 60).count, 1, file: file, line: line)
        pause(1.5)
        let listed = try XCTUnwrap(try queue.status(list: list), file: file, line: line).workers
        XCTAssertEqual(listed.map(\.id), [a.id, b.id], file: file, line: line)
        XCTAssertEqual(listed.map(\.leaseExpired), [true, false], file: file, line: line)
        queue.forgetWorkersAfter = 1
        pause(1)
        XCTAssertEqual(try queue.status(list: list)?.workers.map(\.id), [b.id], "a's lease ran out over 1 s ago", file: file, line: line)
    }

    /// A renewed lease keeps its items from being taken over.
    func checkRenewKeepsItems(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open()
        defer { first.close(); second.close() }
        let list = Self.list("renew")
        try first.load(list: list, entries: Self.entries(4), batchSize: 10, wait: true)
        let a = Self.worker("a"), b = Self.worker("b")
        let held = try first.claim(worker: a, list: list, limit: 4, lease: 1.2)
        pause(0.7)
        XCTAssertEqual(try first.renew(worker: a, lease: 30), Set(held.map(\.id)), file: file, line: line)
        pause(0.8)
        XCTAssertEqual(try second.claim(worker: b, list: list, limit: 4, lease: 30), [], file: file, line: line)
        let status = try XCTUnwrap(try second.status(list: list), file: file, line: line)
        XCTAssertEqual(status.claimed, 4, file: file, line: line)
        XCTAssertEqual(status.abandoned, 0, file: file, line: line)
        XCTAssertEqual(status.workers.map(\.id), [a.id, b.id], file: file, line: line)
        XCTAssertEqual(status.workers.map(\.claims), [4, 0], file: file, line: line)
        XCTAssertEqual(status.workersHoldingLeases, 1, file: file, line: line)
    }

    /// The renewer keeps a worker's claims from running out while it runs; once stopped,
    /// they run out and go to another worker.
    func checkRenewerKeepsLeasesWhileRunning(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open(), third = try open()
        defer { first.close(); second.close(); third.close() }
        let list = Self.list("renewer")
        try first.load(list: list, entries: Self.entries(3), batchSize: 10, wait: true)
        let a = Self.worker("a"), b = Self.worker("b")
        let held = try first.claim(worker: a, list: list, limit: 3, lease: 2)
        let renewals = Collected<Set<Int64>>()
        let renewer = WorkLeaseRenewer(queue: third, worker: a, lease: 2, interval: 0.3, onRenew: { renewals.add($0) })
        XCTAssertTrue(renewer.start(), file: file, line: line)
        for _ in 0..<8 {
            pause(0.4)
            XCTAssertEqual(try second.claim(worker: b, list: list, limit: 3, lease: 30), [], file: file, line: line)
        }
        renewer.stop()
        XCTAssertGreaterThanOrEqual(renewals.values.count, 3, file: file, line: line)
        XCTAssertEqual(renewals.values.last, Set(held.map(\.id)), file: file, line: line)
        pause(2.5)
        XCTAssertEqual(Set(try second.claim(worker: b, list: list, limit: 3, lease: 30).map(\.id)), Set(held.map(\.id)),
                       file: file, line: line)
    }

    /// retryLater with a delay: not claimable before it, claimable after (before fresh items),
    /// with its attempt counted and its reason kept. Delay 0 (or less): claimable at once.
    func checkRetryLaterWaitsItsDelay(file: StaticString = #filePath, line: UInt = #line) throws {
        let queue = try open()
        defer { queue.close() }
        let list = Self.list("retry")
        try queue.load(list: list, entries: Self.entries(3), batchSize: 10, wait: true)
        let a = Self.worker("a"), b = Self.worker("b")
        let first = try queue.claim(worker: a, list: list, limit: 1, lease: 30)
        XCTAssertEqual(first.count, 1, file: file, line: line)
        XCTAssertTrue(try queue.retryLater(worker: a, item: first[0].id, delay: 3, reason: "HTTP 503 Retry-After: 60"), file: file, line: line)
        XCTAssertFalse(try queue.retryLater(worker: a, item: first[0].id, delay: 3, reason: "twice"), "no longer held", file: file, line: line)

        let status = try XCTUnwrap(try queue.status(list: list), file: file, line: line)
        XCTAssertEqual(status.waitingForRetry, 1, file: file, line: line)
        XCTAssertEqual(status.waiting, 2, file: file, line: line)
        let wait = try XCTUnwrap(status.nextRetryIn, file: file, line: line)
        XCTAssertEqual(wait, 3, accuracy: 1, file: file, line: line)

        let others = try queue.claim(worker: b, list: list, limit: 10, lease: 30)
        XCTAssertEqual(others.map(\.line), [3, 5], "the retry is not due yet", file: file, line: line)
        XCTAssertTrue(try queue.retryLater(worker: b, item: others[1].id, delay: 0, reason: "reset"), file: file, line: line)
        XCTAssertEqual(try queue.claim(worker: b, list: list, limit: 10, lease: 30).map(\.line), [5], "delay 0: due at once", file: file, line: line)

        pause(3.5)
        let again = try queue.claim(worker: b, list: list, limit: 10, lease: 30)
        XCTAssertEqual(again.map(\.id), [first[0].id], file: file, line: line)
        XCTAssertEqual(again.first?.attempts, 1, file: file, line: line)
        XCTAssertEqual(again.first?.claims, 2, file: file, line: line)
        XCTAssertEqual(again.first?.lastError, "HTTP 503 Retry-After: 60", file: file, line: line)
        XCTAssertNil(try queue.status(list: list)?.nextRetry, file: file, line: line)
    }

    /// release: the worker's claims are claimable at once by others (no attempt counted),
    /// and the worker leaves the status.
    func checkReleaseReturnsItemsAtOnce(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open()
        defer { first.close(); second.close() }
        let list = Self.list("release")
        try first.load(list: list, entries: Self.entries(5), batchSize: 10, wait: true)
        let a = Self.worker("a"), b = Self.worker("b")
        let held = try first.claim(worker: a, list: list, limit: 3, lease: 300)
        XCTAssertEqual(try first.release(worker: a), 3, file: file, line: line)
        XCTAssertEqual(try first.release(worker: a), 0, file: file, line: line)
        let status = try XCTUnwrap(try second.status(list: list), file: file, line: line)
        XCTAssertEqual(status.waiting, 5, file: file, line: line)
        XCTAssertEqual(status.claimed, 0, file: file, line: line)
        XCTAssertFalse(status.workers.contains { $0.id == a.id }, "a stopped cleanly", file: file, line: line)
        let taken = try second.claim(worker: b, list: list, limit: 3, lease: 30)
        XCTAssertEqual(taken.map(\.id), held.map(\.id), "released items keep their place in the list", file: file, line: line)
        XCTAssertEqual(taken.map(\.attempts), [0, 0, 0], file: file, line: line)
        XCTAssertEqual(try first.complete(worker: a, items: held.map { WorkCompletion(id: $0.id, outcome: "stored") }), [],
                       file: file, line: line)
    }

    /// The counts after a scripted sequence of every kind of call.
    func checkStatusCountsAfterAScript(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open()
        defer { first.close(); second.close() }
        let list = Self.list("script")
        try first.load(list: list, entries: Self.entries(20), batchSize: 6, wait: true)
        let a = WorkerIdentity(id: "worker-a", host: "alpha", pid: 11)
        let b = WorkerIdentity(id: "worker-b", host: "beta", pid: 22)
        let ofA = try first.claim(worker: a, list: list, limit: 6, lease: 60)
        try first.complete(worker: a, items: ofA[0..<3].map { WorkCompletion(id: $0.id, outcome: "stored") })
        XCTAssertTrue(try first.fail(worker: a, item: ofA[3].id, reason: "HTTP 404"), file: file, line: line)
        XCTAssertTrue(try first.retryLater(worker: a, item: ofA[4].id, delay: 60, reason: "HTTP 503"), file: file, line: line)
        let ofB = try second.claim(worker: b, list: list, limit: 4, lease: 60)
        XCTAssertEqual(ofB.count, 4, file: file, line: line)
        try second.complete(worker: b, items: [WorkCompletion(id: ofB[0].id, outcome: "duplicate")])

        for exact in [false, true] {
            let status = try XCTUnwrap(try first.status(list: list, exact: exact), file: file, line: line)
            XCTAssertEqual(status.total, 20, file: file, line: line)
            XCTAssertEqual(status.done, 4, "exact: \(exact)", file: file, line: line)
            XCTAssertEqual(status.failed, 1, file: file, line: line)
            XCTAssertEqual(status.claimed, 1 + 3, file: file, line: line)
            XCTAssertEqual(status.waitingForRetry, 1, file: file, line: line)
            XCTAssertEqual(status.waiting, 20 - 4 - 1 - 4 - 1, file: file, line: line)
            XCTAssertEqual(status.abandoned, 0, file: file, line: line)
            XCTAssertEqual(try XCTUnwrap(status.nextRetryIn, file: file, line: line), 60, accuracy: 5, file: file, line: line)
            XCTAssertEqual(status.workers.map(\.id), ["worker-a", "worker-b"], file: file, line: line)
            XCTAssertEqual(status.workers.map(\.host), ["alpha", "beta"], file: file, line: line)
            XCTAssertEqual(status.workers.map(\.pid), [11, 22], file: file, line: line)
            XCTAssertEqual(status.workers.map(\.claims), [1, 3], file: file, line: line)
            XCTAssertEqual(status.workers.map(\.leaseExpired), [false, false], file: file, line: line)
            XCTAssertEqual(status.workersHoldingLeases, 2, file: file, line: line)
            for worker in status.workers {
                XCTAssertEqual(worker.leaseUntil.timeIntervalSince(status.serverTime), 60, accuracy: 5, file: file, line: line)
                XCTAssertLessThanOrEqual(worker.lastHeartbeat, status.serverTime, file: file, line: line)
            }
            assertSums(status, file: file, line: line)
        }
        // b stops cleanly: its 3 items go back to waiting.
        XCTAssertEqual(try second.release(worker: b), 3, file: file, line: line)
        let after = try XCTUnwrap(try first.status(list: list), file: file, line: line)
        XCTAssertEqual(after.claimed, 1, file: file, line: line)
        XCTAssertEqual(after.waiting, 13, file: file, line: line)
        XCTAssertEqual(after.workers.map(\.id), ["worker-a"], file: file, line: line)
        assertSums(after, file: file, line: line)
    }
}

/// A load on a thread of its own that stops before the entry at `index` until `finish`
/// (created once that point is reached: what came before is committed in batches of 1,000).
final class PausedLoad: @unchecked Sendable {
    private let paused = DispatchSemaphore(value: 0)
    private let resume = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()
    private let reports = Collected<QueueLoadReport>()

    init(_ queue: WorkQueue, _ list: ListIdentity, _ entries: [(line: Int, url: String)], pausingAt index: Int) {
        done.enter()
        let paused = paused, resume = resume
        Thread { [self] in
            let slow = entries.lazy.map { entry -> (line: Int, url: String) in
                if entry.line == entries[index].line {
                    paused.signal()
                    resume.wait()
                }
                return entry
            }
            do { reports.add(try queue.load(list: list, entries: slow, batchSize: 1_000, wait: true)) } catch {}
            done.leave()
        }.start()
        paused.wait()
    }

    /// Lets the load go on and waits for it; its report (none if it threw).
    func finish() -> [QueueLoadReport] {
        resume.signal()
        done.wait()
        return reports.values
    }
}

/// Values added from several threads.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []

    func add(_ value: Value) {
        lock.lock()
        stored.append(value)
        lock.unlock()
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
