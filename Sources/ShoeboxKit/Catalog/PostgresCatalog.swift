import Foundation

/// A catalog in a PostgreSQL 15 database, reached through libpq: the sibling of
/// `SQLiteCatalog` for a list shared by several machines. Same tables and columns
/// (`PostgresCatalogSchema`), created when missing.
///
/// The address is a libpq URI, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?PARAMS]`
/// (or `postgresql://`); libpq fills in what it leaves out from PG* environment variables
/// and ~/.pgpass. Errors (`PostgresError`) name the server as host:port, database and user,
/// never the password.
///
/// Races, as `Catalog` states them, are left to the server: sha256, path and case-folded
/// path are unique constraints; `insertOriginalIfAbsent` is `INSERT … ON CONFLICT (sha256)
/// DO NOTHING`, so two machines inserting the same content get one row and one `true`.
///
/// Transactions: the outermost `transaction` is BEGIN … COMMIT (READ COMMITTED), nested ones
/// are savepoints. Unlike SQLite, a failed statement aborts the whole PostgreSQL
/// transaction: a body that catches an error and goes on needs a nested `transaction`
/// around the statement that may fail; otherwise the outer commit throws and keeps nothing.
///
/// A lost connection is `PostgresError.connectionLost`; the next call outside a
/// transaction reconnects (once per call). Nothing is retried behind the caller's back.
///
/// Thread safety: one instance may be shared by threads. Every call holds a recursive
/// lock; `transaction` holds it for the whole body. For parallel work, open one catalog
/// per thread (one connection each).
public final class PostgresCatalog: Catalog, @unchecked Sendable {
    /// The schema version this build writes and understands.
    public static let schemaVersion = PostgresCatalogSchema.version

    /// The URI without its password, for messages.
    public let address: String
    /// host:port (database, user) as libpq resolved them.
    public var server: String { locked { connection.server } }
    /// Round trips to the server so far (`PostgresConnection.roundTrips`).
    public var roundTrips: Int { locked { connection.roundTrips } }

    private let connection: PostgresConnection
    private let lock = NSRecursiveLock()
    private var depth = 0
    /// This catalog's name on the reservations it holds: also the key of the session-level
    /// advisory lock that says it is alive (`staleReservations`).
    private let holderKey = Int64.random(in: 1...Int64.max)
    private var holder: String { String(holderKey) }
    /// The connection session that holds the liveness lock (0: none yet).
    private var livenessSession = 0

    /// Whether `text` is a PostgreSQL catalog address (`postgres://` or `postgresql://`).
    public static func isPostgresURI(_ text: String) -> Bool { PostgresURI.isPostgresURI(text) }

    /// Connects to the database `uri` names and creates the catalog's tables there when
    /// missing. Throws `PostgresError`: `.invalidURI`, `.serverUnreachable`,
    /// `.authenticationFailed`, `.databaseMissing`, `.notACatalog`, `.schemaTooNew`.
    public init(uri: String) throws {
        let parsed = try PostgresURI(uri)
        address = parsed.description
        connection = try PostgresConnection(uri: parsed)
        do {
            try prepareSchema()
        } catch {
            connection.close()
            throw error
        }
    }

    deinit { connection.close() }

    /// Ends the connection now (also done on deinit); later calls throw `.closed`.
    public func close() {
        locked { connection.close() }
    }

    // MARK: Schema

    private func prepareSchema() throws {
        let exists = try connection.query(PostgresCatalogSchema.hasMetaTable) { $0.string(0) == "t" }.first ?? false
        if !exists { try createSchema() }
        let found = try connection.query(PostgresCatalogSchema.schemaVersion) { $0.string(0) }.first
        guard let found, let version = found.flatMap({ Int($0) }) else {
            throw PostgresError.notACatalog(server: connection.server, detail: "table meta has no schema_version")
        }
        guard version <= Self.schemaVersion else {
            throw PostgresError.schemaTooNew(server: connection.server, found: version, supported: Self.schemaVersion)
        }
        guard version >= 3 else {
            throw PostgresError.notACatalog(
                server: connection.server, detail: "schema_version \(version); a PostgreSQL catalog starts at version 3")
        }
        if version < Self.schemaVersion { try upgradeSchema() }
        try addListIndexes()
    }

    /// Adds the indexes of `PostgresCatalogSchema.listIndexes` to a catalog made before them,
    /// once, under the creation lock (the other processes opening it meanwhile wait, then find them).
    private func addListIndexes() throws {
        let has = { try self.connection.query(PostgresCatalogSchema.hasListIndexes) { $0.string(0) == "t" }.first ?? false }
        guard try !has() else { return }
        try transaction {
            try connection.run("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresCatalogSchema.creationLockKey)])
            guard try !has() else { return }
            for statement in PostgresCatalogSchema.listIndexes { try connection.execute(statement) }
        }
    }

    /// Brings a catalog of an older version to this one (`PostgresCatalogSchema.upgrades`),
    /// once, in one transaction under the creation lock: a process that waited finds it done.
    /// A process of the older build still running writes on (NULL in the new columns, which
    /// means "not known"); one started later refuses the newer version.
    private func upgradeSchema() throws {
        try transaction {
            try connection.run("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresCatalogSchema.creationLockKey)])
            let now = try connection.query(PostgresCatalogSchema.schemaVersion) { $0.string(0) }.first.flatMap { $0.flatMap { Int($0) } }
            guard let now, now < Self.schemaVersion else { return }
            for version in (now + 1)...Self.schemaVersion {
                for statement in PostgresCatalogSchema.upgrades[version] ?? [] { try connection.execute(statement) }
            }
            try connection.run("UPDATE meta SET value = $1 WHERE key = 'schema_version'", [.text(String(Self.schemaVersion))])
        }
    }

    /// Creates whatever is missing, once, even when several processes start on a new database
    /// at the same moment: they queue on the advisory lock, and the later ones find it all there.
    private func createSchema() throws {
        try transaction {
            try connection.run("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresCatalogSchema.creationLockKey)])
            for statement in PostgresCatalogSchema.createStatements { try connection.execute(statement) }
            let meta = [
                ("schema_version", String(Self.schemaVersion)),
                ("created_at", Timestamp.iso8601()),
                ("created_by", "shoebox \(Shoebox.version)"),
            ]
            for (key, value) in meta {
                try connection.run(PostgresCatalogSchema.insertMeta, [.text(key), .text(value)])
            }
        }
    }

    // MARK: Transactions

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if depth == 0 { try reconnectIfBroken() }
        depth += 1
        defer { depth -= 1 }
        let savepoint = depth == 1 ? nil : "shoebox_\(depth)"
        try connection.execute(savepoint.map { "SAVEPOINT \($0)" } ?? "BEGIN")
        let result: T
        do {
            result = try body()
        } catch {
            rollback(savepoint: savepoint)
            throw error
        }
        try commit(savepoint: savepoint)
        return result
    }

    private func rollback(savepoint: String?) {
        guard !connection.isBroken, connection.isInTransaction else { return }
        if let savepoint {
            // Also leaves an aborted transaction usable again.
            try? connection.execute("ROLLBACK TO SAVEPOINT \(savepoint)")
            try? connection.execute("RELEASE SAVEPOINT \(savepoint)")
        } else {
            try? connection.execute("ROLLBACK")
        }
    }

    private func commit(savepoint: String?) throws {
        // COMMIT of an aborted transaction "succeeds" as a ROLLBACK: a statement of the body
        // failed and the body went on; nothing may be reported as kept.
        if connection.isInFailedTransaction {
            rollback(savepoint: savepoint)
            throw PostgresError.server(
                server: connection.server, sqlState: "25P02",
                detail: "a statement of this transaction failed and its error was caught; nothing was committed")
        }
        do {
            try connection.execute(savepoint.map { "RELEASE SAVEPOINT \($0)" } ?? "COMMIT")
        } catch {
            rollback(savepoint: savepoint)
            throw error
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs a catalog call under the lock; outside a transaction, a broken connection is
    /// first re-established (inside one it stays broken: the transaction is lost).
    private func call<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if depth == 0 { try reconnectIfBroken() }
        return try body()
    }

    /// Reconnects a broken connection; a writer that holds reservations takes its liveness
    /// lock again at once on the new session (before its commit is retried), so that no
    /// other writer's recovery takes it for gone.
    private func reconnectIfBroken() throws {
        try connection.reconnectIfBroken()
        if livenessSession != 0, livenessSession != connection.sessions {
            try connection.run(PostgresCatalogSchema.holdLiveness, [.integer(holderKey)])
            livenessSession = connection.sessions
        }
    }

    // MARK: Originals

    public func original(sha256: String) throws -> OriginalRecord? {
        try call { try connection.query(PostgresCatalogSchema.originalBySHA, [.text(sha256)], Self.original).first }
    }

    public func original(path: String) throws -> OriginalRecord? {
        try call { try connection.query(PostgresCatalogSchema.originalByPath, [.text(path)], Self.original).first }
    }

    public func hasOriginal(pathIgnoringCase path: String) throws -> Bool {
        try call {
            try connection.query(PostgresCatalogSchema.originalByFoldedPath, [.text(CaseFoldedPath.fold(path))]) {
                _ in true
            }.first ?? false
        }
    }

    /// Fails with `PostgresError.constraint` (`originals_pkey`, `originals_path_key` or
    /// `originals_folded_path`) when the sha256, the path or the case-folded path is taken.
    public func insertOriginal(_ record: OriginalRecord) throws {
        try call { try connection.run(PostgresCatalogSchema.insertOriginal, Self.values(record)) }
    }

    /// `INSERT … ON CONFLICT (sha256) DO NOTHING`: false when the sha256 is recorded; a path
    /// taken by another original still fails with `PostgresError.constraint`.
    public func insertOriginalIfAbsent(_ record: OriginalRecord) throws -> Bool {
        try call {
            try !connection.query(PostgresCatalogSchema.insertOriginalIfAbsent, Self.values(record)) { _ in () }.isEmpty
        }
    }

    /// One round trip: the rows inserted as one array per column.
    public func recordMetadata(lens: String, exposure: String, sha256: String) throws {
        try call { try connection.run(PostgresCatalogSchema.recordMetadata, [.text(lens), .text(exposure), .text(sha256)]) }
    }

    public func insertOriginalsIfAbsent(_ records: [OriginalRecord]) throws -> Set<String> {
        guard !records.isEmpty else { return [] }
        let columns = Self.columnArrays(records.map(Self.values))
        return try call { Set(try connection.query(PostgresCatalogSchema.insertOriginalsIfAbsent, columns) { $0.string(0) ?? "" }) }
    }

    public func originals(sha256s: [String]) throws -> [String: OriginalRecord] {
        guard !sha256s.isEmpty else { return [:] }
        let records = try call { try connection.query(PostgresCatalogSchema.originalsBySHAs, [.textArray(Array(Set(sha256s)))], Self.original) }
        return Dictionary(records.map { ($0.sha256, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func reservePath(_ path: String, for sha256: String) throws -> Bool {
        let folded = CaseFoldedPath.fold(path)
        return try call {
            try holdLiveness()
            let inserted = try connection.query(
                PostgresCatalogSchema.reservePath, [.text(folded), .text(path), .text(sha256), .text(holder)]) { _ in () }
            if !inserted.isEmpty { return true }
            // Taken by an original, or reserved: ours only when this writer reserved it for this
            // content (a lost answer retried); another writer's reservation, even for the same
            // bytes, is not (its holder's failure path and recovery would remove the object).
            let reservedFor = try connection.query(
                PostgresCatalogSchema.reservationHolder, [.text(folded), .text(holder)]) { $0.string(0) }.first
            return reservedFor == sha256
        }
    }

    /// Two round trips for the whole batch: the insert of every reservation, then (when some
    /// were refused) which of those this writer already holds for the same content.
    public func reservePaths(_ wanted: [PathReservation]) throws -> Set<PathReservation> {
        var seen = Set<String>()
        let asked = wanted.map { (folded: CaseFoldedPath.fold($0.path), reservation: $0) }.filter { seen.insert($0.folded).inserted }
        guard !asked.isEmpty else { return [] }
        return try call {
            try holdLiveness()
            let inserted = Set(try connection.query(
                PostgresCatalogSchema.reservePaths,
                [.textArray(asked.map(\.folded)), .textArray(asked.map(\.reservation.path)),
                 .textArray(asked.map(\.reservation.sha256)), .text(holder)]
            ) { $0.string(0) ?? "" })
            var granted = Set(asked.map(\.reservation).filter { inserted.contains($0.path) })
            let refused = asked.filter { !inserted.contains($0.reservation.path) }
            guard !refused.isEmpty else { return granted }
            // As `reservePath`: a refused path is ours only when this writer reserved it for this content.
            let ours = Dictionary(try connection.query(
                PostgresCatalogSchema.reservationsOfHolder, [.textArray(refused.map(\.folded)), .text(holder)]
            ) { ($0.string(0) ?? "", $0.string(1) ?? "") }, uniquingKeysWith: { first, _ in first })
            for (folded, reservation) in refused where ours[folded] == reservation.sha256 { granted.insert(reservation) }
            return granted
        }
    }

    /// Takes this holder's liveness lock on the current session, once per session: before its
    /// first reservation there, so that no other writer's recovery takes its reservations for a dead writer's.
    private func holdLiveness() throws {
        guard livenessSession != connection.sessions else { return }
        try connection.run(PostgresCatalogSchema.holdLiveness, [.integer(holderKey)])
        livenessSession = connection.sessions
    }

    public func releaseReservations() throws {
        try call { try connection.run(PostgresCatalogSchema.releaseReservations, [.text(holder)]) }
    }

    /// Whether a writer holds a reservation of `path` (compared ignoring case): its object may be
    /// published and not yet committed, so nobody else may adopt or remove it.
    public func isReserved(_ path: String) throws -> Bool {
        try call { try !connection.query(PostgresCatalogSchema.isReserved, [.text(CaseFoldedPath.fold(path))]) { _ in () }.isEmpty }
    }

    /// A path reservation of a writer that is gone.
    public struct StaleReservation: Sendable, Equatable {
        public var path: String
        public var sha256: String
        fileprivate var foldedPath: String
        fileprivate var holder: String
    }

    /// Reservations older than `age` seconds whose writer is gone (its connection, and so its
    /// advisory lock, ended): a writer killed between publishing a batch and committing it
    /// left them, perhaps with the objects it published. A writer whose connection is only
    /// interrupted gives up reconnecting long before `age` (see `PostgresRetry`).
    public func staleReservations(olderThan age: Double) throws -> [StaleReservation] {
        try call {
            let old = try connection.query(PostgresCatalogSchema.oldReservations, [.double(age), .text(holder)]) {
                StaleReservation(path: $0.string(1) ?? "", sha256: $0.string(2) ?? "", foldedPath: $0.string(0) ?? "", holder: $0.string(3) ?? "")
            }
            var gone: [String: Bool] = [:]
            for holder in Set(old.map(\.holder)) {
                guard let key = Int64(holder) else { gone[holder] = true; continue }
                let free = try connection.query(PostgresCatalogSchema.tryLiveness, [.integer(key)]) { $0.string(0) == "t" }.first ?? false
                if free { try connection.run(PostgresCatalogSchema.dropLiveness, [.integer(key)]) }
                gone[holder] = free
            }
            return old.filter { gone[$0.holder] == true }
        }
    }

    /// Makes a stale reservation this writer's own, so that it alone deals with its object (nil
    /// when another writer's recovery took it first): while held, nobody can reserve the path
    /// again and publish there, so nothing published afresh at it is taken for the dead
    /// writer's. End it with `dropReservation` of what this returns.
    public func takeOver(_ reservation: StaleReservation) throws -> StaleReservation? {
        try call {
            try holdLiveness()
            let taken = try connection.query(
                PostgresCatalogSchema.takeOverReservation, [.text(reservation.foldedPath), .text(reservation.holder), .text(holder)]
            ) { _ in () }
            guard !taken.isEmpty else { return nil }
            var ours = reservation
            ours.holder = holder
            return ours
        }
    }

    /// Ends a stale reservation (once its object, if any, is dealt with).
    public func dropReservation(_ reservation: StaleReservation) throws {
        try call { try connection.run(PostgresCatalogSchema.dropReservation, [.text(reservation.foldedPath), .text(reservation.holder)]) }
    }

    /// Binds the catalog to the store `store` (its URL) the first time; returns the store it is
    /// bound to (this one, or the one an earlier writer bound).
    public func bindStore(_ store: String) throws -> String {
        try call {
            try connection.run(PostgresCatalogSchema.insertMeta, [.text("store"), .text(store)])
            return try connection.query(PostgresCatalogSchema.boundStore) { $0.string(0) }.first.flatMap { $0 } ?? store
        }
    }

    /// The store the catalog is bound to, if a writer bound one.
    public func boundStore() throws -> String? {
        try call { try connection.query(PostgresCatalogSchema.boundStore) { $0.string(0) }.first.flatMap { $0 } }
    }

    public func originals(after path: String?, limit: Int) throws -> [OriginalRecord] {
        try call {
            if let path {
                return try connection.query(
                    PostgresCatalogSchema.originalsAfter, [.text(path), .integer(Int64(max(0, limit)))], Self.original)
            }
            return try connection.query(
                PostgresCatalogSchema.originalsFromStart, [.integer(Int64(max(0, limit)))], Self.original)
        }
    }

    public func allOriginals() throws -> [OriginalRecord] {
        try call { try connection.query(PostgresCatalogSchema.allOriginals, [], Self.original) }
    }

    public func countOriginals() throws -> Int {
        try call { try connection.query(PostgresCatalogSchema.countOriginals) { $0.int(0) ?? 0 }.first ?? 0 }
    }

    /// Streams the rows in single-row mode (`PostgresConnection.stream`).
    public func originals(matching query: OriginalQuery, limit: Int?, _ each: (OriginalRecord) throws -> Bool) throws {
        try rows(matching: query, limit: limit, columns: CatalogSchema.originalColumns, decode: Self.original) { record in
            query.matchesExactly(record) ? try each(record) : nil
        }
    }

    /// Selects the path alone, unless rows are still checked one by one.
    public func originalPaths(matching query: OriginalQuery, limit: Int?, _ each: (String) throws -> Bool) throws {
        guard !query.needsExactCheck else {
            return try originals(matching: query, limit: limit) { try each($0.path) }
        }
        try rows(matching: query, limit: limit, columns: "path", decode: { $0.string(0) ?? "" }, each)
    }

    /// The query's statements run in turn; `each` gives false to stop, nil to skip a row (which
    /// then does not count towards `limit`).
    private func rows<Row>(matching query: OriginalQuery, limit: Int?, columns: String, decode: (PostgresRow) -> Row,
                           _ each: (Row) throws -> Bool?) throws {
        let statements = OriginalQuerySQL.statements(
            for: query, columns: columns, dialect: .postgres, limited: limit != nil && !query.needsExactCheck)
        try call {
            var remaining = limit ?? Int.max
            for statement in statements where remaining > 0 {
                var values = statement.parameters.map(PostgresValue.init)
                if statement.limited { values.append(.integer(Int64(remaining))) }
                var stopped = false
                try connection.stream(statement.sql, values) { row in
                    guard let goOn = try each(decode(row)) else { return true }
                    remaining -= 1
                    stopped = !goOn
                    // With a LIMIT the server ends the result itself: no cancel needed.
                    return goOn && (remaining > 0 || statement.limited)
                }
                if stopped { return }
            }
        }
    }

    private static func values(_ record: OriginalRecord) -> [PostgresValue] {
        [
            .text(record.sha256), .text(record.path), .integer(record.bytes), .text(record.contentType),
            .of(record.width), .of(record.height), .of(record.takenAt), .of(record.make), .of(record.model),
            .of(record.gpsLatitude), .of(record.gpsLongitude), .of(record.gpsAltitude),
            .of(record.orientation), .text(record.addedAt), .of(record.datedBy?.rawValue), .of(record.lens),
            .of(record.exposure), .text(CaseFoldedPath.fold(record.path)),
        ]
    }

    private static func original(_ row: PostgresRow) -> OriginalRecord {
        OriginalRecord(
            sha256: row.string(0) ?? "", path: row.string(1) ?? "", bytes: row.int64(2) ?? 0,
            contentType: row.string(3) ?? "", width: row.int(4), height: row.int(5), takenAt: row.string(6),
            datedBy: row.string(14).flatMap(CaptureDateSource.init(rawValue:)),
            make: row.string(7), model: row.string(8), lens: row.string(15), exposure: row.string(16), gpsLatitude: row.double(9), gpsLongitude: row.double(10),
            gpsAltitude: row.double(11), orientation: row.int(12), addedAt: row.string(13) ?? "")
    }

    // MARK: Sources

    public func source(url: String) throws -> SourceRecord? {
        try call { try connection.query(PostgresCatalogSchema.sourceByURL, [.text(url)], source).first }
    }

    public func sources(urls: [String]) throws -> [String: SourceRecord] {
        guard !urls.isEmpty else { return [:] }
        // One round trip: the URLs as one text[] parameter (an array literal, each element quoted;
        // escaped byte by byte: Foundation's replacingOccurrences missed a quote followed by a
        // combining mark, one Character).
        let records = try call { try connection.query(PostgresCatalogSchema.sourcesByURLs, [.textArray(urls)], source) }
        return Dictionary(records.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func upsertSource(_ record: SourceRecord) throws {
        try transaction {
            if let version = SourceVersion(record) { try upsertSourceVersion(version) }
            try call { try connection.run(PostgresCatalogSchema.upsertSource, Self.values(record)) }
        }
    }

    public func upsertSourceVersion(_ version: SourceVersion) throws {
        try call { try connection.run(PostgresCatalogSchema.upsertSourceVersion, Self.values(version)) }
    }

    private static func values(_ version: SourceVersion) -> [PostgresValue] {
        [
            .text(version.url), .text(version.sha256), .of(version.finalURL), .of(version.etag), .of(version.lastModified),
            .of(version.httpStatus), .text(version.firstFetchedAt), .text(version.lastFetchedAt),
        ]
    }

    public func sourceVersions(sha256: String) throws -> [SourceVersion] {
        try call { try connection.query(PostgresCatalogSchema.sourceVersionsBySHA, [.text(sha256)], sourceVersion) }
    }

    public func sourceVersions(url: String) throws -> [SourceVersion] {
        try call { try connection.query(PostgresCatalogSchema.sourceVersionsByURL, [.text(url)], sourceVersion) }
    }

    private func sourceVersion(_ row: PostgresRow) throws -> SourceVersion {
        SourceVersion(url: row.string(0) ?? "", sha256: row.string(1) ?? "", finalURL: row.string(2), etag: row.string(3),
                      lastModified: row.string(4), httpStatus: row.int(5).map { Int($0) },
                      firstFetchedAt: row.string(6) ?? "", lastFetchedAt: row.string(7) ?? "")
    }

    /// One round trip: the last record of each URL, as one array per column (one statement may
    /// not update a row twice). URLs compared by their bytes, as the table's key is: Swift's
    /// String equality would take "café" composed and decomposed for one URL.
    public func upsertSources(_ records: [SourceRecord]) throws {
        var last: [[UInt8]: Int] = [:]
        for (index, record) in records.enumerated() { last[Array(record.url.utf8)] = index }
        let rows = records.indices.filter { last[Array(records[$0].url.utf8)] == $0 }.map { Self.values(records[$0]) }
        guard !rows.isEmpty else { return }
        // Each (URL, content) pair once, its latest record (one statement may not update a row twice).
        var versions: [String: SourceVersion] = [:]
        for version in records.compactMap(SourceVersion.init) { SourceVersion.merge(version, into: &versions) }
        try transaction {
            if !versions.isEmpty {
                try call { try connection.run(PostgresCatalogSchema.upsertSourceVersions, Self.columnArrays(versions.values.map(Self.values))) }
            }
            try call { try connection.run(PostgresCatalogSchema.upsertSources, Self.columnArrays(rows)) }
        }
    }

    /// Rows of parameters turned into one array parameter per column (for `unnest`).
    private static func columnArrays(_ rows: [[PostgresValue]]) -> [PostgresValue] {
        (0..<(rows.first?.count ?? 0)).map { column in PostgresValue.array(rows.map { $0[column] }) }
    }

    private static func values(_ record: SourceRecord) -> [PostgresValue] {
        [
            .text(record.url), .of(record.finalURL), .of(record.sha256), .of(record.etag),
            .of(record.lastModified), .of(record.httpStatus), .text(record.fetchedAt),
            .text(record.outcome.rawValue), .of(record.reason),
        ]
    }

    public func sources(sha256: String) throws -> [SourceRecord] {
        try call { try connection.query(PostgresCatalogSchema.sourcesBySHA, [.text(sha256)], source) }
    }

    public func allSources() throws -> [SourceRecord] {
        try call { try connection.query(PostgresCatalogSchema.allSources, [], source) }
    }

    public func hasSources() throws -> Bool {
        try call { try connection.query(PostgresCatalogSchema.hasSources) { _ in true }.first ?? false }
    }

    public func countSources() throws -> Int {
        try call { try connection.query(PostgresCatalogSchema.countSources) { $0.int(0) ?? 0 }.first ?? 0 }
    }

    private func source(_ row: PostgresRow) throws -> SourceRecord {
        let url = row.string(0) ?? ""
        let outcomeText = row.string(7) ?? ""
        guard let outcome = FetchOutcome(rawValue: outcomeText) else {
            throw PostgresError.notACatalog(
                server: connection.server, detail: "unknown outcome '\(outcomeText)' for source \(url)")
        }
        return SourceRecord(
            url: url, finalURL: row.string(1), sha256: row.string(2), etag: row.string(3),
            lastModified: row.string(4), httpStatus: row.int(5), fetchedAt: row.string(6) ?? "",
            outcome: outcome, reason: row.string(8))
    }

    // MARK: Thumbnails

    public func thumbnails(sha256: String) throws -> [ThumbnailRecord] {
        try call { try connection.query(PostgresCatalogSchema.thumbnailsBySHA, [.text(sha256)], Self.thumbnail) }
    }

    public func allThumbnails() throws -> [ThumbnailRecord] {
        try call { try connection.query(PostgresCatalogSchema.allThumbnails, [], Self.thumbnail) }
    }

    public func upsertThumbnail(_ record: ThumbnailRecord) throws {
        try call {
            try connection.run(
                PostgresCatalogSchema.upsertThumbnail,
                [
                    .text(record.originalSHA256), .text(record.size), .text(record.path), .text(record.format),
                    .integer(Int64(record.width)), .integer(Int64(record.height)), .integer(record.bytes),
                    .text(record.createdAt), .of(record.settings),
                ])
        }
    }

    public func removeThumbnail(path: String) throws {
        try call { try connection.run(PostgresCatalogSchema.removeThumbnail, [.text(path)]) }
    }

    private static func thumbnail(_ row: PostgresRow) -> ThumbnailRecord {
        ThumbnailRecord(
            originalSHA256: row.string(0) ?? "", size: row.string(1) ?? "", path: row.string(2) ?? "",
            format: row.string(3) ?? "", width: row.int(4) ?? 0, height: row.int(5) ?? 0,
            bytes: row.int64(6) ?? 0, createdAt: row.string(7) ?? "", settings: row.string(8))
    }
}
