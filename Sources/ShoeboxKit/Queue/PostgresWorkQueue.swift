import Foundation

/// The work queue in a PostgreSQL 15 database, next to a `PostgresCatalog`'s tables (same
/// database; `PostgresWorkQueueSchema`, created when missing). Each instance has its own
/// connection: open one per worker thread that claims, or share one behind its lock.
///
/// Races are left to the server, as `WorkQueue` states them: claims are
/// `FOR UPDATE SKIP LOCKED`, a list's loader holds a session advisory lock keyed on the
/// list (released by the server when the loader's connection ends, however it ends), and
/// every result names the worker that must still hold the item.
///
/// A loader's process that dies closes its socket and the server releases its lock at once.
/// A network cut is noticed by the server's TCP keepalives, which this connection sets to
/// 10 s idle + 3 probes 5 s apart (session settings, made again after a reconnect): about
/// 25 s later the lock is free for the next loader.
///
/// A lost connection is `PostgresError.connectionLost`; the next call reconnects (once per
/// call). Nothing is retried behind the caller's back, except a batch insert chosen as a
/// deadlock victim (two lists sharing URLs loading at once), which is repeated.
public final class PostgresWorkQueue: WorkQueue, @unchecked Sendable {
    /// The URI without its password, for messages.
    public let address: String
    public var server: String { locked { connection.server } }

    private let connection: PostgresConnection
    private let lock = NSRecursiveLock()
    /// List sha256 → id (a list's row is never deleted).
    private var listIDs: [String: Int64] = [:]
    /// Set by `close` before it waits for the call under way: a load stops at its next batch.
    private let closing = ManagedAtomicFlag()
    /// How often a loader waiting for another one looks again.
    static let loadPollInterval = 0.25

    /// Connects to the database `uri` names; creates the catalog (through `PostgresCatalog`)
    /// and the queue's tables when missing. Throws `PostgresError`, like `PostgresCatalog`.
    public init(uri: String) throws {
        let parsed = try PostgresURI(uri)
        address = parsed.description
        connection = try PostgresConnection(uri: parsed)
        do {
            try prepareSchema(uri: uri)
        } catch {
            connection.close()
            throw error
        }
    }

    deinit { connection.close() }

    /// Ends the connection (also done on deinit), from any thread: a call under way on another
    /// thread ends first (a load stops at its next batch or its next look at another loader,
    /// throwing `WorkQueueError.closed`), and the server frees the lock. Later calls throw
    /// `WorkQueueError.closed`.
    public func close() {
        closing.set()
        locked { connection.close() }
    }

    // MARK: Connection

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs a call under the lock, reconnecting first if the connection broke.
    private func call<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !closing.isSet else { throw WorkQueueError.closed }
        if connection.isBroken { try connection.reconnectIfBroken() }
        return try body()
    }

    private func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try connection.execute(begin)
        do {
            let value = try body()
            try connection.execute("COMMIT")
            return value
        } catch {
            if !connection.isBroken && connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Schema

    private func prepareSchema(uri: String) throws {
        var found = try storedVersion()
        if found == nil {
            // The catalog first (it refuses a database that is something else, or too new),
            // then the queue beside it.
            try PostgresCatalog(uri: uri).close()
            try transaction {
                try connection.run("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresCatalogSchema.creationLockKey)])
                for statement in PostgresWorkQueueSchema.createStatements { try connection.execute(statement) }
                try connection.run(
                    PostgresWorkQueueSchema.insertVersion,
                    [.text(PostgresWorkQueueSchema.versionKey), .text(String(PostgresWorkQueueSchema.version))])
            }
            found = try storedVersion()
        }
        guard let found else {
            throw PostgresError.notACatalog(server: connection.server, detail: "no \(PostgresWorkQueueSchema.versionKey) in meta")
        }
        guard found <= PostgresWorkQueueSchema.version else {
            throw PostgresError.schemaTooNew(server: connection.server, found: found, supported: PostgresWorkQueueSchema.version)
        }
    }

    private func storedVersion() throws -> Int? {
        let hasMeta = try connection.query(PostgresWorkQueueSchema.hasMetaTable) { $0.string(0) == "t" }.first ?? false
        guard hasMeta else { return nil }
        return try connection.query(PostgresWorkQueueSchema.queueVersion) { $0.int(0) }.first ?? nil
    }

    // MARK: Loading

    @discardableResult
    public func load(
        list: ListIdentity, entries: some Sequence<(line: Int, url: String)>, batchSize: Int, wait: Bool
    ) throws -> QueueLoadReport {
        try call {
            // Looked up first: an INSERT … ON CONFLICT DO NOTHING uses up an id each time.
            if (try? listState(list)) == nil {
                try connection.run(PostgresWorkQueueSchema.ensureList, [.text(list.sha256), .text(list.name)])
            }
            var (id, loaded, _) = try listState(list)
            listIDs[list.sha256] = id
            if loaded { return QueueLoadReport(outcome: .alreadyLoaded, resumedAfterLine: 0, urlsOffered: 0, itemsAdded: 0) }

            // Polled rather than a blocking pg_advisory_lock: a waiting loader sees the list
            // loaded as soon as it is, and `close` from another thread is heard.
            while try connection.query(PostgresWorkQueueSchema.tryLockList, [.integer(id)], { $0.string(0) == "t" }).first
                != true
            {
                guard wait else {
                    return QueueLoadReport(outcome: .loadingElsewhere, resumedAfterLine: 0, urlsOffered: 0, itemsAdded: 0)
                }
                Thread.sleep(forTimeInterval: Self.loadPollInterval)
                guard !closing.isSet else { throw WorkQueueError.closed }
                if try listState(list).1 {
                    return QueueLoadReport(outcome: .alreadyLoaded, resumedAfterLine: 0, urlsOffered: 0, itemsAdded: 0)
                }
            }
            defer {
                // After a lost or closed connection the server has freed the lock already.
                if !connection.isBroken { try? connection.run(PostgresWorkQueueSchema.unlockList, [.integer(id)]) }
            }
            let through: Int
            (id, loaded, through) = try listState(list)
            if loaded {
                return QueueLoadReport(outcome: .alreadyLoaded, resumedAfterLine: through, urlsOffered: 0, itemsAdded: 0)
            }

            var lines: [Int64] = []
            var urls: [String] = []
            let size = max(1, batchSize)
            lines.reserveCapacity(size)
            urls.reserveCapacity(size)
            var previous = 0
            var offered = 0
            var added = 0
            for entry in entries {
                guard entry.line > previous else { throw WorkQueueError.linesOutOfOrder(previous: previous, line: entry.line) }
                previous = entry.line
                if entry.line <= through { continue }
                guard !entry.url.isEmpty, !entry.url.utf8.contains(0) else { throw WorkQueueError.invalidURL(line: entry.line) }
                lines.append(Int64(entry.line))
                urls.append(entry.url)
                if urls.count >= size {
                    guard !closing.isSet else { throw WorkQueueError.closed }
                    added += try insertBatch(list: id, lines: lines, urls: urls, through: entry.line)
                    offered += urls.count
                    lines.removeAll(keepingCapacity: true)
                    urls.removeAll(keepingCapacity: true)
                }
            }
            guard !closing.isSet else { throw WorkQueueError.closed }
            if !urls.isEmpty {
                added += try insertBatch(list: id, lines: lines, urls: urls, through: previous)
                offered += urls.count
            }
            try connection.run(PostgresWorkQueueSchema.markLoaded, [.integer(id), .integer(Int64(previous))])
            return QueueLoadReport(outcome: .loaded, resumedAfterLine: through, urlsOffered: offered, itemsAdded: added)
        }
    }

    /// (id, loaded, loaded_through) of a list whose row exists.
    private func listState(_ list: ListIdentity) throws -> (Int64, Bool, Int) {
        let rows = try connection.query(PostgresWorkQueueSchema.listState, [.text(list.sha256)]) {
            ($0.int64(0) ?? 0, $0.string(1) == "loaded", $0.int(2) ?? 0)
        }
        guard let row = rows.first else { throw WorkQueueError.unknownList(list) }
        return row
    }

    private func insertBatch(list: Int64, lines: [Int64], urls: [String], through: Int) throws -> Int {
        let values: [PostgresValue] = [
            .integer(list), .integerArray(lines), .textArray(urls), .textArray(urls.map(Self.urlKey)),
            .integer(Int64(through)), .integer(Int64(urls.count)),
        ]
        var tries = 0
        while true {
            do {
                return try connection.query(PostgresWorkQueueSchema.insertBatch, values) { $0.int(0) ?? 0 }.first ?? 0
            } catch let PostgresError.server(_, sqlState, _) where sqlState == "40P01" && tries < 5 {
                // Deadlock victim (another list inserting some of the same URLs in another
                // order): the statement changed nothing; do it again.
                tries += 1
            }
        }
    }

    /// The unique key of a URL: the SHA-256 of its UTF-8 bytes, in hex.
    static func urlKey(_ url: String) -> String {
        let hasher = SHA256Hasher()
        var url = url
        url.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        return hasher.finalizeHex()
    }

    private func listID(_ list: ListIdentity) throws -> Int64 {
        if let id = listIDs[list.sha256] { return id }
        guard let id = try connection.query(PostgresWorkQueueSchema.listID, [.text(list.sha256)], { $0.int64(0) }).first ?? nil
        else { throw WorkQueueError.unknownList(list) }
        listIDs[list.sha256] = id
        return id
    }

    // MARK: Claims

    public func claim(worker: WorkerIdentity, list: ListIdentity, limit: Int, lease: Double) throws -> [WorkItem] {
        guard limit > 0 else { return [] }
        return try call {
            let id = try listID(list)
            let items = try connection.query(
                PostgresWorkQueueSchema.claim,
                [
                    .text(worker.id), .text(worker.host), .integer(Int64(worker.pid)), .integer(id),
                    .integer(Int64(limit)), .double(lease),
                ]
            ) { row in
                WorkItem(
                    id: row.int64(0) ?? 0, url: row.string(1) ?? "", line: row.int(2) ?? 0, attempts: row.int(3) ?? 0,
                    claims: row.int(4) ?? 0, lastError: row.string(5))
            }
            // RETURNING gives no order: in list order.
            return items.sorted { $0.line < $1.line }
        }
    }

    @discardableResult
    public func renew(worker: WorkerIdentity, lease: Double) throws -> Set<Int64> {
        try call {
            Set(
                try connection.query(
                    PostgresWorkQueueSchema.renew,
                    [.text(worker.id), .text(worker.host), .integer(Int64(worker.pid)), .double(lease)]
                ) { $0.int64(0) ?? 0 })
        }
    }

    @discardableResult
    public func complete(worker: WorkerIdentity, items: [WorkCompletion]) throws -> Set<Int64> {
        guard !items.isEmpty else { return [] }
        return try call {
            Set(
                try connection.query(
                    PostgresWorkQueueSchema.complete,
                    [.text(worker.id), .integerArray(items.map(\.id)), .textArray(items.map(\.outcome))]
                ) { $0.int64(0) ?? 0 })
        }
    }

    @discardableResult
    public func retryLater(worker: WorkerIdentity, item: Int64, delay: Double, reason: String) throws -> Bool {
        try call {
            try !connection.query(
                PostgresWorkQueueSchema.retryLater, [.text(worker.id), .integer(item), .double(delay), .text(reason)]
            ) { _ in () }.isEmpty
        }
    }

    @discardableResult
    public func fail(worker: WorkerIdentity, item: Int64, reason: String) throws -> Bool {
        try call {
            try connection.query(PostgresWorkQueueSchema.fail, [.text(worker.id), .integer(item), .text(reason)]) {
                $0.int(0) ?? 0
            }.first == 1
        }
    }

    /// In one transaction: the list's row locked (so reopeners take turns), then, on a fresh
    /// snapshot, reopened only when nothing of it waits or is claimed.
    @discardableResult
    public func reopen(list: ListIdentity, _ scope: ReopenScope) throws -> Int {
        try call {
            try transaction {
                guard let id = try connection.query(PostgresWorkQueueSchema.lockLoadedList, [.text(list.sha256)], { $0.int64(0) }).first ?? nil,
                      try connection.query(PostgresWorkQueueSchema.listBusy, [.integer(id)], { $0.string(0) }).first == "f"
                else { return 0 }
                let states = scope == .all ? ["done", "failed"] : ["failed"]
                return try connection.query(PostgresWorkQueueSchema.reopen, [.integer(id), .textArray(states)]) { $0.int(0) ?? 0 }.first ?? 0
            }
        }
    }

    @discardableResult
    public func release(worker: WorkerIdentity) throws -> Int {
        try call { try connection.query(PostgresWorkQueueSchema.release, [.text(worker.id)]) { _ in () }.count }
    }

    // MARK: Status

    public var forgetWorkersAfter: Double {
        get { lock.withLock { forgetAfter } }
        set { lock.withLock { forgetAfter = newValue } }
    }
    private var forgetAfter: Double = 3600

    public func status(list: ListIdentity, exact: Bool) throws -> QueueStatus? {
        try call {
            // One snapshot for every count and the worker table.
            try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
                struct Counts {
                    var id: Int64 = 0, now = 0.0, loaded = false, through = 0, offered = 0, items = 0, done = 0,
                        failed = 0, live = 0, expired = 0, due = 0, later = 0
                    var next: Double?
                    var loaderActive = false
                }
                let found = try connection.query(PostgresWorkQueueSchema.status, [.text(list.sha256)]) { row in
                    Counts(
                        id: row.int64(0) ?? 0, now: row.double(1) ?? 0, loaded: row.string(2) == "loaded",
                        through: row.int(3) ?? 0, offered: row.int(4) ?? 0, items: row.int(5) ?? 0, done: row.int(6) ?? 0,
                        failed: row.int(7) ?? 0, live: row.int(8) ?? 0, expired: row.int(9) ?? 0, due: row.int(10) ?? 0,
                        later: row.int(11) ?? 0, next: row.double(12), loaderActive: row.string(13) == "t")
                }
                guard var counts = found.first else { return nil }
                if exact {
                    let exactRows = try connection.query(PostgresWorkQueueSchema.exactCounts, [.integer(counts.id)]) {
                        ($0.int(0) ?? 0, $0.int(1) ?? 0, $0.int(2) ?? 0)
                    }
                    if let (total, done, failed) = exactRows.first {
                        counts.items = total
                        counts.done = done
                        counts.failed = failed
                    }
                }
                let workers = try connection.query(
                    PostgresWorkQueueSchema.workers, [.integer(counts.id), .double(forgetWorkersAfter)]
                ) { row in
                    QueueStatus.Worker(
                        id: row.string(0) ?? "", host: row.string(1) ?? "", pid: row.int(2) ?? 0,
                        started: Date(timeIntervalSince1970: row.double(3) ?? 0),
                        lastHeartbeat: Date(timeIntervalSince1970: row.double(4) ?? 0),
                        leaseUntil: Date(timeIntervalSince1970: row.double(5) ?? 0),
                        leaseExpired: row.string(6) == "t", claims: row.int(7) ?? 0)
                }
                let fresh = counts.items - counts.done - counts.failed - counts.live - counts.expired - counts.due
                    - counts.later
                return QueueStatus(
                    list: list, loaded: counts.loaded, loaderActive: counts.loaderActive, linesLoaded: counts.through,
                    urlsOffered: counts.offered,
                    total: counts.items, done: counts.done, failed: counts.failed, claimed: counts.live,
                    waiting: fresh + counts.due + counts.expired, abandoned: counts.expired, waitingForRetry: counts.later,
                    nextRetry: counts.next.map { Date(timeIntervalSince1970: $0) },
                    serverTime: Date(timeIntervalSince1970: counts.now), workers: workers)
            }
        }
    }
}
