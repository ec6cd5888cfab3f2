import Foundation
import ShoeboxKit

/// A work queue held in memory with the semantics of `PostgresWorkQueue` (see `WorkQueue`),
/// for in-process tests of what claims and completes work. Several instances over one
/// `Store` are several connections to one queue (several workers); `close()` on an instance
/// is a killed connection: its load stops at the next batch and another loader may continue.
/// The store's `clock` stands for the database server's clock (`Clock` can be set and advanced).
public final class InMemoryWorkQueue: WorkQueue, @unchecked Sendable {
    /// A clock tests move by hand.
    public final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var current: Date

        public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

        public var now: Date {
            lock.lock()
            defer { lock.unlock() }
            return current
        }

        public func advance(by seconds: Double) {
            lock.lock()
            current += seconds
            lock.unlock()
        }
    }

    /// The queue itself, shared by the instances (connections) made over it.
    public final class Store: @unchecked Sendable {
        fileprivate struct List {
            var id: Int64
            var name: String
            var loaded = false
            var through = 0
            var offered = 0
            var items = 0
            var loaderBusy = false
        }

        fileprivate enum State { case waiting, claimed, done, failed }

        fileprivate struct Item {
            let id: Int64
            let list: Int64
            let line: Int
            let url: String
            var state = State.waiting
            var notBefore: Date?
            var worker: String?
            var leaseUntil: Date?
            var attempts = 0
            var claims = 0
            var lastError: String?
            var outcome: String?
        }

        fileprivate struct Worker {
            var identity: WorkerIdentity
            var list: Int64?
            var running = true
            var started: Date
            var heartbeat: Date
            var leaseUntil: Date
        }

        fileprivate let condition = NSCondition()
        fileprivate let clock: @Sendable () -> Date
        fileprivate var lists: [String: List] = [:]
        fileprivate var items: [Item] = []
        /// URLs as bytes: Swift's String equality is canonical equivalence ("é" == "e\u{301}"),
        /// PostgreSQL's key is the bytes.
        fileprivate var urls: Set<[UInt8]> = []
        fileprivate var workers: [String: Worker] = [:]
        fileprivate var tallies: [String: (done: Int, failed: Int)] = [:]

        public init(clock: @escaping @Sendable () -> Date = { Date() }) {
            self.clock = clock
        }

        fileprivate func locked<T>(_ body: () throws -> T) rethrows -> T {
            condition.lock()
            defer { condition.unlock() }
            return try body()
        }
    }

    public let store: Store
    private let closedLock = NSLock()
    private var isClosed = false

    public init(store: Store = Store()) {
        self.store = store
    }

    /// Like a dropped connection: later calls throw `WorkQueueError.closed`.
    public func close() {
        closedLock.lock()
        isClosed = true
        closedLock.unlock()
        // Wakes a load of this instance waiting for another loader (it looks at the flag
        // under this lock, so the wake-up cannot fall between its look and its wait).
        store.condition.lock()
        store.condition.broadcast()
        store.condition.unlock()
    }

    private func checkOpen() throws {
        closedLock.lock()
        defer { closedLock.unlock() }
        if isClosed { throw WorkQueueError.closed }
    }

    private func call<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        return try store.locked(body)
    }

    // MARK: Loading

    /// Set to make the next `load` read all its entries, then throw this error with nothing
    /// loaded (a connection lost mid-load), then cleared.
    public var failNextLoad: Error?

    @discardableResult
    public func load(
        list: ListIdentity, entries: some Sequence<(line: Int, url: String)>, batchSize: Int, wait: Bool
    ) throws -> QueueLoadReport {
        try checkOpen()
        if let failure = failNextLoad {
            failNextLoad = nil
            for _ in entries {}
            throw failure
        }
        let store = store
        store.condition.lock()
        if store.lists[list.sha256] == nil {
            store.lists[list.sha256] = Store.List(id: Int64(store.lists.count + 1), name: list.name)
        }
        while true {
            guard let row = store.lists[list.sha256] else { preconditionFailure("the list row was made above") }
            if row.loaded {
                store.condition.unlock()
                return QueueLoadReport(outcome: .alreadyLoaded, resumedAfterLine: 0, urlsOffered: 0, itemsAdded: 0)
            }
            if !row.loaderBusy { break }
            if !wait {
                store.condition.unlock()
                return QueueLoadReport(outcome: .loadingElsewhere, resumedAfterLine: 0, urlsOffered: 0, itemsAdded: 0)
            }
            store.condition.wait()
            do {
                try checkOpen()
            } catch {
                store.condition.unlock()
                throw error
            }
        }
        store.lists[list.sha256]?.loaderBusy = true
        let through = store.lists[list.sha256]?.through ?? 0
        let listID = store.lists[list.sha256]?.id ?? 0
        store.condition.unlock()
        defer {
            store.locked { store.lists[list.sha256]?.loaderBusy = false }
            store.condition.broadcast()
        }

        var batch: [(line: Int, url: String)] = []
        var previous = 0
        var offered = 0
        var added = 0
        func flush(through line: Int) throws {
            try checkOpen()
            added += store.locked {
                var count = 0
                for entry in batch where store.urls.insert(Array(entry.url.utf8)).inserted {
                    store.items.append(
                        Store.Item(id: Int64(store.items.count + 1), list: listID, line: entry.line, url: entry.url))
                    count += 1
                }
                if var row = store.lists[list.sha256] {
                    row.through = max(row.through, line)
                    row.offered += batch.count
                    row.items += count
                    store.lists[list.sha256] = row
                }
                return count
            }
            offered += batch.count
            batch.removeAll(keepingCapacity: true)
        }
        for entry in entries {
            guard entry.line > previous else { throw WorkQueueError.linesOutOfOrder(previous: previous, line: entry.line) }
            previous = entry.line
            if entry.line <= through { continue }
            guard !entry.url.isEmpty, !entry.url.utf8.contains(0) else { throw WorkQueueError.invalidURL(line: entry.line) }
            batch.append(entry)
            if batch.count >= max(1, batchSize) { try flush(through: entry.line) }
        }
        if !batch.isEmpty { try flush(through: previous) }
        try checkOpen()
        store.locked {
            if var row = store.lists[list.sha256] {
                row.loaded = true
                row.through = max(row.through, previous)
                store.lists[list.sha256] = row
            }
        }
        return QueueLoadReport(outcome: .loaded, resumedAfterLine: through, urlsOffered: offered, itemsAdded: added)
    }

    // MARK: Claims

    public func claim(worker: WorkerIdentity, list: ListIdentity, limit: Int, lease: Double) throws -> [WorkItem] {
        guard limit > 0 else { return [] }
        return try call {
            guard let listID = store.lists[list.sha256]?.id else { throw WorkQueueError.unknownList(list) }
            let now = store.clock()
            heartbeat(worker, list: listID, leaseUntil: now + lease, now: now, extendOnly: true)
            // One pass: expired leases and due retries anywhere, fresh items in id order.
            var expired: [(Date, Int)] = []
            var due: [(Date, Int)] = []
            var fresh: [Int] = []
            store.items.withUnsafeBufferPointer { items in
                for index in items.indices where items[index].list == listID {
                    let item = items[index]
                    switch item.state {
                    case .claimed:
                        if let until = item.leaseUntil, until < now { expired.append((until, index)) }
                    case .waiting:
                        if let notBefore = item.notBefore {
                            if notBefore <= now { due.append((notBefore, index)) }
                        } else if fresh.count < limit {
                            fresh.append(index)
                        }
                    case .done, .failed:
                        break
                    }
                }
            }
            expired.sort { $0 < $1 }
            due.sort { $0 < $1 }
            let picked = Array((expired.map(\.1) + due.map(\.1) + fresh).prefix(limit))
            for index in picked {
                store.items[index].state = .claimed
                store.items[index].worker = worker.id
                store.items[index].leaseUntil = now + lease
                store.items[index].claims += 1
            }
            return picked.sorted { store.items[$0].line < store.items[$1].line }.map { index in
                let item = store.items[index]
                return WorkItem(
                    id: item.id, url: item.url, line: item.line, attempts: item.attempts, claims: item.claims,
                    lastError: item.lastError)
            }
        }
    }

    private func heartbeat(_ worker: WorkerIdentity, list: Int64?, leaseUntil: Date, now: Date, extendOnly: Bool) {
        if var row = store.workers[worker.id] {
            row.identity = worker
            if let list { row.list = list }
            row.running = true
            row.heartbeat = now
            row.leaseUntil = extendOnly ? max(row.leaseUntil, leaseUntil) : leaseUntil
            store.workers[worker.id] = row
        } else {
            store.workers[worker.id] = Store.Worker(
                identity: worker, list: list, started: now, heartbeat: now, leaseUntil: leaseUntil)
        }
    }

    private func held(_ index: Int, by worker: WorkerIdentity) -> Bool {
        store.items[index].state == .claimed && store.items[index].worker == worker.id
    }

    private func index(of id: Int64) -> Int? {
        let index = Int(id) - 1
        return store.items.indices.contains(index) ? index : nil
    }

    @discardableResult
    public func renew(worker: WorkerIdentity, lease: Double) throws -> Set<Int64> {
        try call {
            let now = store.clock()
            heartbeat(worker, list: nil, leaseUntil: now + lease, now: now, extendOnly: false)
            var ids: Set<Int64> = []
            for index in store.items.indices where held(index, by: worker) {
                store.items[index].leaseUntil = now + lease
                ids.insert(store.items[index].id)
            }
            return ids
        }
    }

    @discardableResult
    public func complete(worker: WorkerIdentity, items: [WorkCompletion]) throws -> Set<Int64> {
        try call {
            var ids: Set<Int64> = []
            for completion in items {
                guard let index = index(of: completion.id), held(index, by: worker) else { continue }
                store.items[index].state = .done
                store.items[index].outcome = completion.outcome
                store.items[index].leaseUntil = nil
                ids.insert(completion.id)
                tally(worker, list: store.items[index].list, done: 1, failed: 0)
            }
            return ids
        }
    }

    private func tally(_ worker: WorkerIdentity, list: Int64, done: Int, failed: Int) {
        let key = "\(list) \(worker.id)"
        let old = store.tallies[key] ?? (0, 0)
        store.tallies[key] = (old.done + done, old.failed + failed)
    }

    @discardableResult
    public func retryLater(worker: WorkerIdentity, item: Int64, delay: Double, reason: String) throws -> Bool {
        try call {
            guard let index = index(of: item), held(index, by: worker) else { return false }
            store.items[index].state = .waiting
            store.items[index].notBefore = store.clock() + delay
            store.items[index].attempts += 1
            store.items[index].lastError = reason
            store.items[index].worker = nil
            store.items[index].leaseUntil = nil
            return true
        }
    }

    @discardableResult
    public func fail(worker: WorkerIdentity, item: Int64, reason: String) throws -> Bool {
        try call {
            guard let index = index(of: item), held(index, by: worker) else { return false }
            store.items[index].state = .failed
            store.items[index].attempts += 1
            store.items[index].lastError = reason
            store.items[index].leaseUntil = nil
            tally(worker, list: store.items[index].list, done: 0, failed: 1)
            return true
        }
    }

    @discardableResult
    public func reopen(list: ListIdentity, _ scope: ReopenScope) throws -> Int {
        try call {
            guard let row = store.lists[list.sha256], row.loaded,
                  !store.items.contains(where: { $0.list == row.id && ($0.state == .waiting || $0.state == .claimed) })
            else { return 0 }
            var reopened = 0
            for index in store.items.indices where store.items[index].list == row.id {
                let state = store.items[index].state
                guard state == .failed || (scope == .all && state == .done) else { continue }
                store.items[index].state = .waiting
                store.items[index].notBefore = nil
                store.items[index].worker = nil
                store.items[index].leaseUntil = nil
                store.items[index].attempts = 0
                store.items[index].claims = 0
                store.items[index].outcome = nil
                reopened += 1
            }
            for key in store.tallies.keys where key.hasPrefix("\(row.id) ") {
                store.tallies[key] = (scope == .all ? 0 : store.tallies[key]!.done, 0)
            }
            return reopened
        }
    }

    @discardableResult
    public func release(worker: WorkerIdentity) throws -> Int {
        try call {
            let now = store.clock()
            if store.workers[worker.id] != nil {
                store.workers[worker.id]?.running = false
                store.workers[worker.id]?.heartbeat = now
                store.workers[worker.id]?.leaseUntil = now
            }
            var count = 0
            for index in store.items.indices where held(index, by: worker) {
                store.items[index].state = .waiting
                store.items[index].notBefore = nil
                store.items[index].worker = nil
                store.items[index].leaseUntil = nil
                count += 1
            }
            return count
        }
    }

    // MARK: Status

    public var forgetWorkersAfter: Double = 3600

    /// Always exact (counted), whatever `exact` says.
    public func status(list: ListIdentity, exact: Bool) throws -> QueueStatus? {
        try call {
            guard let row = store.lists[list.sha256] else { return nil }
            let now = store.clock()
            var done = 0, failed = 0, live = 0, expired = 0, due = 0, later = 0, fresh = 0
            var next: Date?
            var held: [String: Int] = [:]
            for item in store.items where item.list == row.id {
                switch item.state {
                case .done: done += 1
                case .failed: failed += 1
                case .claimed:
                    if let until = item.leaseUntil, until < now { expired += 1 } else { live += 1 }
                    held[item.worker ?? "", default: 0] += 1
                case .waiting:
                    if let notBefore = item.notBefore {
                        if notBefore <= now {
                            due += 1
                        } else {
                            later += 1
                            next = min(next ?? notBefore, notBefore)
                        }
                    } else {
                        fresh += 1
                    }
                }
            }
            let workers = store.workers.values
                .filter {
                    ($0.list == row.id && $0.running && $0.leaseUntil > now.addingTimeInterval(-forgetWorkersAfter))
                        || held[$0.identity.id, default: 0] > 0
                }
                .sorted { ($0.started, $0.identity.id) < ($1.started, $1.identity.id) }
                .map { worker in
                    QueueStatus.Worker(
                        id: worker.identity.id, host: worker.identity.host, pid: worker.identity.pid, started: worker.started,
                        lastHeartbeat: worker.heartbeat, leaseUntil: worker.leaseUntil, leaseExpired: worker.leaseUntil < now,
                        claims: held[worker.identity.id, default: 0])
                }
            return QueueStatus(
                list: list, loaded: row.loaded, loaderActive: row.loaderBusy, linesLoaded: row.through, urlsOffered: row.offered, total: row.items,
                done: done, failed: failed, claimed: live, waiting: fresh + due + expired, abandoned: expired,
                waitingForRetry: later, nextRetry: next, serverTime: now, workers: workers)
        }
    }
}
