import CSQLite
import Foundation

/// The embedded catalog: one SQLite file (`LIBRARY/catalog.sqlite`), schema in
/// `CatalogSchema`.
///
/// Opening runs `PRAGMA quick_check` (unless told not to) and throws
/// `CatalogError.corrupt` for a damaged file; the file is never replaced or repaired
/// here (`shoebox reindex` rebuilds it). The check reads the whole file: 0.8 s for a
/// catalog of a million originals, so a reader that only looks rows up may skip it
/// (a damaged page it meets is still `CatalogError.corrupt`).
/// Read-write catalogs use WAL with `synchronous=FULL`: a committed transaction is on
/// disk when `transaction` returns. Readers in other processes (`shoebox verify`) see
/// the last commit while a writer works.
///
/// Thread safety: one instance may be shared by any number of threads. Every call
/// holds a recursive lock; `transaction` holds it for the whole body, so another
/// thread's calls wait until the transaction ends and never interleave with it.
/// Nested `transaction` calls (same thread) become savepoints: an inner failure rolls
/// back only the inner body; the outermost commit makes everything durable.
public final class SQLiteCatalog: Catalog, @unchecked Sendable {
    /// The schema version this build writes and understands.
    public static let schemaVersion = CatalogSchema.version
    /// How long a call waits for another process's lock before `CatalogError.busy`.
    public static let busyTimeoutMilliseconds: Int32 = 10_000

    public let path: String
    public let isReadOnly: Bool
    /// Internal for tests (whether a transaction is left open).
    let connection: SQLiteConnection
    private let lock = NSRecursiveLock()
    private var depth = 0
    /// The columns read for an original: a reader of an older catalog gets NULL for newer ones.
    private var originalColumns = CatalogSchema.originalColumns
    private var thumbnailColumns = CatalogSchema.thumbnailColumns
    /// The columns of `originals` a reader of an older catalog does without.
    private var missingColumns: Set<String> = []
    /// False for a reader of a catalog made before version 4: its history is its `sources`.
    private var hasSourceVersions = true

    private let checksIntegrity: Bool
    /// Paths reserved by this writer, case-folded. Held in the process: the library lock
    /// makes this connection the only writer, so no other can reserve meanwhile.
    private var reserved: [String: String] = [:]

    /// Opens (creating when `readOnly` is false and the file is missing) the catalog at `path`.
    /// `immutable` (with `readOnly`): see `SQLiteConnection.init`.
    public init(path: String, readOnly: Bool = false, checkIntegrity: Bool = true, immutable: Bool = false) throws {
        self.path = path
        self.isReadOnly = readOnly
        checksIntegrity = checkIntegrity
        try Self.preflight(path: path, readOnly: readOnly)
        connection = try SQLiteConnection(path: path, readOnly: readOnly, immutable: immutable)
        do {
            try configure()
        } catch {
            connection.close()
            throw error
        }
    }

    /// Closes the database now (also done on deinit); later calls fail.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        connection.close()
    }

    // MARK: Opening

    /// Turns file-system problems into clear errors before SQLite sees them.
    private static func preflight(path: String, readOnly: Bool) throws {
        let files = FileManager.default
        let folder = FolderPath.containing(path)
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { throw CatalogError.unreadable(path: path, detail: "it is a folder, not a file") }
            guard files.isReadableFile(atPath: path) else {
                throw CatalogError.unreadable(path: path, detail: "permission denied")
            }
            guard !readOnly else { return }
            guard files.isWritableFile(atPath: path) else {
                throw CatalogError.unwritable(path: path, detail: "the file is read-only")
            }
            guard files.isWritableFile(atPath: folder) else {
                throw CatalogError.unwritable(path: path, detail: "its folder \(folder) is not writable")
            }
        } else if readOnly {
            throw CatalogError.unreadable(path: path, detail: "no such file")
        } else {
            guard files.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw CatalogError.unwritable(path: path, detail: "folder \(folder) does not exist")
            }
            guard files.isWritableFile(atPath: folder) else {
                throw CatalogError.unwritable(path: path, detail: "folder \(folder) is not writable")
            }
        }
    }

    private func configure() throws {
        connection.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
        if !isReadOnly && connection.isReadOnlyHandle {
            throw CatalogError.unwritable(path: path, detail: "SQLite could only open it read-only")
        }
        if checksIntegrity { try quickCheck() }
        if !isReadOnly {
            let mode = try connection.query("PRAGMA journal_mode=WAL") { $0.string(0) ?? "" }.first ?? ""
            guard mode.lowercased() == "wal" else {
                throw CatalogError.unwritable(path: path, detail: "cannot switch to WAL mode (got '\(mode)')")
            }
            try connection.execute("PRAGMA synchronous=FULL")
        }
        try connection.execute("PRAGMA foreign_keys=ON")
        try prepareSchema()
        if !isReadOnly { try addListIndexes() }
    }

    /// Adds the indexes of `CatalogSchema.listIndexes` a catalog made before them lacks
    /// (nothing to do, and no write, when it has them).
    private func addListIndexes() throws {
        let names = Set(try connection.query("SELECT name FROM sqlite_master WHERE type='index'") { $0.string(0) ?? "" })
        let missing = CatalogSchema.listIndexes.filter { statement in
            !names.contains(where: { statement.contains(" \($0) ON ") })
        }
        guard !missing.isEmpty else { return }
        try transaction {
            for statement in missing { try connection.execute(statement) }
        }
    }

    private func quickCheck() throws {
        let lines = try connection.query("PRAGMA quick_check") { $0.string(0) ?? "" }
        guard lines == ["ok"] else {
            let detail = lines.prefix(3).joined(separator: "; ")
            throw CatalogError.corrupt(path: path, detail: "quick_check: \(detail)")
        }
    }

    private func prepareSchema() throws {
        let tables = Set(try connection.query("SELECT name FROM sqlite_master WHERE type='table'") { $0.string(0) ?? "" })
        if tables.isEmpty {
            // A new catalog, or one whose creation was interrupted (kill -9 right after the
            // file appeared): empty. A writer creates the schema; a reader sees no rows.
            if isReadOnly {
                try createEmptyTemporarySchema()
            } else {
                try createSchema()
            }
            return
        }
        guard tables.contains("meta") else {
            throw CatalogError.corrupt(path: path, detail: "a SQLite database without a Shoebox schema version")
        }
        let found = try connection.query("SELECT value FROM meta WHERE key='schema_version'") { $0.string(0) }
            .first.flatMap { $0.flatMap { Int($0) } }
        guard let found, found >= 1 else {
            throw CatalogError.corrupt(path: path, detail: "missing or invalid schema_version in table meta")
        }
        guard found <= Self.schemaVersion else {
            throw CatalogError.schemaTooNew(path: path, found: found, supported: Self.schemaVersion)
        }
        if found < Self.schemaVersion {
            if isReadOnly {
                hasSourceVersions = found >= 4
                originalColumns = CatalogSchema.originalColumns(forVersion: found)
                missingColumns = CatalogSchema.originalColumnsMissing(inVersion: found)
                if found < 2 { thumbnailColumns = CatalogSchema.thumbnailColumnsVersion1 }
            } else {
                try upgradeSchema(from: found)
            }
        }
    }

    /// Brings an older catalog to the current version in one transaction.
    private func upgradeSchema(from found: Int) throws {
        try transaction {
            for version in (found + 1)...Self.schemaVersion {
                for statement in CatalogSchema.upgrades[version] ?? [] { try connection.execute(statement) }
                if version == 3 { try fillFoldedPaths() }
            }
            try connection.run("UPDATE meta SET value = ? WHERE key = 'schema_version'", [.text(String(Self.schemaVersion))])
        }
    }

    /// Computes `folded_path` for every original (Swift folds letters SQLite cannot), in
    /// slices so a catalog of millions is never held in memory, then indexes it.
    private func fillFoldedPaths() throws {
        var lastRow: Int64 = 0
        while true {
            let slice = try connection.query(
                "SELECT rowid, path FROM originals WHERE rowid > ? ORDER BY rowid LIMIT 10000", [.integer(lastRow)]
            ) { ($0.int64(0) ?? 0, $0.string(1) ?? "") }
            guard let last = slice.last else { break }
            for (row, path) in slice {
                try connection.run("UPDATE originals SET folded_path = ? WHERE rowid = ?",
                                   [.text(CaseFoldedPath.fold(path)), .integer(row)])
            }
            lastRow = last.0
        }
        try connection.execute(CatalogSchema.foldedPathIndex)
    }

    private func createSchema() throws {
        try transaction {
            for statement in CatalogSchema.createStatements { try connection.execute(statement) }
            let meta = [
                ("schema_version", String(CatalogSchema.version)),
                ("created_at", Timestamp.iso8601()),
                ("created_by", "shoebox \(Shoebox.version)"),
            ]
            for (key, value) in meta {
                try connection.run("INSERT INTO meta (key, value) VALUES (?, ?)", [.text(key), .text(value)])
            }
        }
    }

    /// The schema as TEMP tables, so reads of an empty read-only file return no rows.
    private func createEmptyTemporarySchema() throws {
        for statement in CatalogSchema.createStatements where statement.hasPrefix("CREATE TABLE") {
            try connection.execute(statement.replacingOccurrences(of: "CREATE TABLE", with: "CREATE TEMP TABLE"))
        }
    }

    // MARK: Transactions

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(beginning: isReadOnly ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE", body)
    }

    /// `transaction`, its outermost level opened with `begin`.
    private func transaction<T>(beginning begin: String, _ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        depth += 1
        defer { depth -= 1 }
        let savepoint = "shoebox_\(depth)"
        if depth == 1 {
            try connection.execute(begin)
        } else {
            try connection.execute("SAVEPOINT \(savepoint)")
        }
        let result: T
        do {
            result = try body()
        } catch {
            rollback(savepoint: depth == 1 ? nil : savepoint)
            throw error
        }
        try commit(savepoint: depth == 1 ? nil : savepoint)
        return result
    }

    private func rollback(savepoint: String?) {
        guard connection.isInTransaction else { return }  // SQLite already rolled back (disk full, I/O error)
        if let savepoint {
            try? connection.execute("ROLLBACK TO \(savepoint)")
            try? connection.execute("RELEASE \(savepoint)")
        } else {
            try? connection.execute("ROLLBACK")
        }
    }

    private func commit(savepoint: String?) throws {
        do {
            try connection.execute(savepoint.map { "RELEASE \($0)" } ?? "COMMIT")
        } catch {
            if savepoint == nil { rollback(savepoint: nil) }
            throw error
        }
    }

    /// Runs `body`'s reads in one deferred transaction: SQLite takes the WAL's read lock once
    /// for all of them (two `fcntl` calls) instead of once per statement. Inside a
    /// transaction already, it just runs. Reads only: a write in `body` (a `transaction` there
    /// would be a savepoint of this read, not BEGIN IMMEDIATE) could fail on a stale snapshot.
    private func reading<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try depth == 0 ? transaction(beginning: "BEGIN DEFERRED", body) : body()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Originals

    public func original(sha256: String) throws -> OriginalRecord? {
        try locked {
            try connection.query(
                "SELECT \(originalColumns) FROM originals WHERE sha256 = ?", [.text(sha256)], Self.original
            ).first
        }
    }

    public func original(path: String) throws -> OriginalRecord? {
        try locked {
            try connection.query(
                "SELECT \(originalColumns) FROM originals WHERE path = ?", [.text(path)], Self.original
            ).first
        }
    }

    public func hasOriginal(pathIgnoringCase path: String) throws -> Bool {
        try locked { try hasOriginal(folded: CaseFoldedPath.fold(path)) }
    }

    /// Whether an original's `folded_path` is `folded` (a path already case-folded). Call under the lock.
    private func hasOriginal(folded: String) throws -> Bool {
        try connection.query("SELECT 1 FROM originals WHERE folded_path = ? LIMIT 1", [.text(folded)]) { $0.int(0) }.first != nil
    }

    public func insertOriginal(_ record: OriginalRecord) throws {
        try locked {
            try connection.run(
                "INSERT INTO originals (\(CatalogSchema.originalColumns), folded_path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    .text(record.sha256), .text(record.path), .integer(record.bytes), .text(record.contentType),
                    .of(record.width), .of(record.height), .of(record.takenAt), .of(record.make), .of(record.model),
                    .of(record.gpsLatitude), .of(record.gpsLongitude), .of(record.gpsAltitude),
                    .of(record.orientation), .text(record.addedAt), .of(record.datedBy?.rawValue), .of(record.lens),
                    .of(record.exposure), .text(CaseFoldedPath.fold(record.path)),
                ])
        }
    }

    public func recordMetadata(lens: String, exposure: String, sha256: String) throws {
        try locked {
            try connection.run("UPDATE originals SET lens = coalesce(lens, ?), exposure = coalesce(exposure, ?) "
                               + "WHERE sha256 = ? AND (lens IS NULL OR exposure IS NULL)", [.text(lens), .text(exposure), .text(sha256)])
        }
    }

    public func reservePath(_ path: String, for sha256: String) throws -> Bool {
        try locked {
            let folded = CaseFoldedPath.fold(path)
            if let holder = reserved[folded] { return holder == sha256 }
            if try hasOriginal(folded: folded) { return false }
            reserved[folded] = sha256
            return true
        }
    }

    /// `Catalog.reservePaths` (one path after another) with the catalog read once for all.
    public func reservePaths(_ wanted: [PathReservation]) throws -> Set<PathReservation> {
        try reading { try reservePathsOneByOne(wanted) }
    }

    /// One index probe per hash, all in one read of the catalog.
    public func originals(sha256s: [String]) throws -> [String: OriginalRecord] {
        try reading { try originalsOneByOne(sha256s) }
    }

    public func releaseReservations() throws {
        locked { reserved.removeAll(keepingCapacity: true) }
    }

    public func insertOriginalIfAbsent(_ record: OriginalRecord) throws -> Bool {
        try transaction {
            if try original(sha256: record.sha256) != nil { return false }
            try insertOriginal(record)
            return true
        }
    }

    public func originals(after path: String?, limit: Int) throws -> [OriginalRecord] {
        try locked {
            try connection.query(
                "SELECT \(originalColumns) FROM originals WHERE path > ? ORDER BY path LIMIT ?",
                [.text(path ?? ""), .integer(Int64(limit))], Self.original)
        }
    }

    public func allOriginals() throws -> [OriginalRecord] {
        try locked {
            try connection.query("SELECT \(originalColumns) FROM originals ORDER BY path", [], Self.original)
        }
    }

    public func countOriginals() throws -> Int {
        try locked { try connection.query("SELECT count(*) FROM originals") { $0.int(0) ?? 0 }.first ?? 0 }
    }

    /// Streams the rows as SQLite steps to them, in one read transaction (one snapshot for
    /// both statements of a capture-time sort).
    public func originals(matching query: OriginalQuery, limit: Int?, _ each: (OriginalRecord) throws -> Bool) throws {
        try rows(matching: query, limit: limit, columns: originalColumns, decode: Self.original) { record in
            query.matchesExactly(record) ? try each(record) : nil
        }
    }

    /// Selects the path alone (the capture-time, added-time and path orders read it from their
    /// index), unless rows are still checked one by one.
    public func originalPaths(matching query: OriginalQuery, limit: Int?, _ each: (String) throws -> Bool) throws {
        guard !query.needsExactCheck else {
            return try originals(matching: query, limit: limit) { try each($0.path) }
        }
        try rows(matching: query, limit: limit, columns: "path", decode: { $0.string(0) ?? "" }, each)
    }

    /// The query's statements run in turn; `each` gives false to stop, nil to skip a row (which
    /// then does not count towards `limit`).
    private func rows<Row>(matching query: OriginalQuery, limit: Int?, columns: String, decode: (SQLiteRow) -> Row,
                           _ each: (Row) throws -> Bool?) throws {
        let statements = OriginalQuerySQL.statements(
            for: query, columns: columns, dialect: .sqlite, limited: limit != nil && !query.needsExactCheck,
            missingColumns: missingColumns, sourceTable: hasSourceVersions ? "source_versions" : "sources")
        try transaction {
            var remaining = limit ?? Int.max
            for statement in statements where remaining > 0 {
                var values = statement.parameters.map(SQLiteValue.init)
                if statement.limited { values.append(.integer(Int64(remaining))) }
                var stopped = false
                try connection.each(statement.sql, values) { row in
                    guard let goOn = try each(decode(row)) else { return true }
                    remaining -= 1
                    stopped = !goOn
                    return goOn && remaining > 0
                }
                if stopped { return }
            }
        }
    }

    private static func original(_ row: SQLiteRow) -> OriginalRecord {
        OriginalRecord(
            sha256: row.string(0) ?? "", path: row.string(1) ?? "", bytes: row.int64(2) ?? 0,
            contentType: row.string(3) ?? "", width: row.int(4), height: row.int(5), takenAt: row.string(6),
            datedBy: row.string(14).flatMap(CaptureDateSource.init(rawValue:)),
            make: row.string(7), model: row.string(8), lens: row.string(15), exposure: row.string(16), gpsLatitude: row.double(9), gpsLongitude: row.double(10),
            gpsAltitude: row.double(11), orientation: row.int(12), addedAt: row.string(13) ?? "")
    }

    // MARK: Sources

    public func source(url: String) throws -> SourceRecord? {
        try locked {
            try connection.query(
                "SELECT \(CatalogSchema.sourceColumns) FROM sources WHERE url = ?", [.text(url)], source
            ).first
        }
    }

    public func sources(urls: [String]) throws -> [String: SourceRecord] {
        var found: [String: SourceRecord] = [:]
        // SQLite allows some hundreds of parameters per statement: asked in chunks.
        for start in stride(from: 0, to: urls.count, by: 256) {
            let chunk = Array(urls[start..<min(urls.count, start + 256)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            try locked {
                for record in try connection.query(
                    "SELECT \(CatalogSchema.sourceColumns) FROM sources WHERE url IN (\(marks))", chunk.map { .text($0) }, source
                ) { found[record.url] = record }
            }
        }
        return found
    }

    public func upsertSource(_ record: SourceRecord) throws {
        try locked {
            if let version = SourceVersion(record) { try upsertSourceVersion(version) }
            try connection.run(
                "INSERT OR REPLACE INTO sources (\(CatalogSchema.sourceColumns)) VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    .text(record.url), .of(record.finalURL), .of(record.sha256), .of(record.etag),
                    .of(record.lastModified), .of(record.httpStatus), .text(record.fetchedAt),
                    .text(record.outcome.rawValue), .of(record.reason),
                ])
        }
    }

    public func sources(sha256: String) throws -> [SourceRecord] {
        try locked {
            try connection.query(
                "SELECT \(CatalogSchema.sourceColumns) FROM sources WHERE sha256 = ? ORDER BY url", [.text(sha256)], source)
        }
    }

    public func upsertSourceVersion(_ version: SourceVersion) throws {
        try locked {
            try connection.run(CatalogSchema.upsertSourceVersion, [
                .text(version.url), .text(version.sha256), .of(version.finalURL), .of(version.etag), .of(version.lastModified),
                .of(version.httpStatus), .text(version.firstFetchedAt), .text(version.lastFetchedAt),
            ])
        }
    }

    public func sourceVersions(sha256: String) throws -> [SourceVersion] {
        try versions(where: "sha256 = ?", .text(sha256))
    }

    public func sourceVersions(url: String) throws -> [SourceVersion] {
        try versions(where: "url = ?", .text(url))
    }

    private func versions(where condition: String, _ value: SQLiteValue) throws -> [SourceVersion] {
        try locked {
            guard hasSourceVersions else {
                return try connection.query("SELECT \(CatalogSchema.sourceColumns) FROM sources WHERE \(condition) AND sha256 IS NOT NULL",
                                            [value], source).compactMap(SourceVersion.init).sorted { $0.lastFetchedAt > $1.lastFetchedAt }
            }
            return try connection.query(
                "SELECT \(CatalogSchema.sourceVersionColumns) FROM source_versions WHERE \(condition) ORDER BY last_fetched_at DESC, url",
                [value]
            ) { row in
                SourceVersion(url: row.string(0) ?? "", sha256: row.string(1) ?? "", finalURL: row.string(2), etag: row.string(3),
                              lastModified: row.string(4), httpStatus: row.int(5).map { Int($0) },
                              firstFetchedAt: row.string(6) ?? "", lastFetchedAt: row.string(7) ?? "")
            }
        }
    }

    /// Every source row, ordered by URL (for verify, reindex and dumps).
    public func allSources() throws -> [SourceRecord] {
        try locked { try connection.query("SELECT \(CatalogSchema.sourceColumns) FROM sources ORDER BY url", [], source) }
    }

    public func hasSources() throws -> Bool {
        try locked { try connection.query("SELECT 1 FROM sources LIMIT 1") { $0.int(0) ?? 0 }.first != nil }
    }

    public func countSources() throws -> Int {
        try locked { try connection.query("SELECT count(*) FROM sources") { $0.int(0) ?? 0 }.first ?? 0 }
    }

    private func source(_ row: SQLiteRow) throws -> SourceRecord {
        let url = row.string(0) ?? ""
        let outcomeText = row.string(7) ?? ""
        guard let outcome = FetchOutcome(rawValue: outcomeText) else {
            throw CatalogError.corrupt(path: path, detail: "unknown outcome '\(outcomeText)' for source \(url)")
        }
        return SourceRecord(
            url: url, finalURL: row.string(1), sha256: row.string(2), etag: row.string(3),
            lastModified: row.string(4), httpStatus: row.int(5), fetchedAt: row.string(6) ?? "",
            outcome: outcome, reason: row.string(8))
    }

    // MARK: Thumbnails

    public func thumbnails(sha256: String) throws -> [ThumbnailRecord] {
        try locked {
            try connection.query(
                "SELECT \(thumbnailColumns) FROM thumbnails WHERE original_sha256 = ? ORDER BY path",
                [.text(sha256)], Self.thumbnail)
        }
    }

    public func allThumbnails() throws -> [ThumbnailRecord] {
        try locked {
            try connection.query("SELECT \(thumbnailColumns) FROM thumbnails ORDER BY path", [], Self.thumbnail)
        }
    }

    public func upsertThumbnail(_ record: ThumbnailRecord) throws {
        try locked {
            try connection.run(
                "INSERT OR REPLACE INTO thumbnails (\(CatalogSchema.thumbnailColumns)) VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    .text(record.originalSHA256), .text(record.size), .text(record.path), .text(record.format),
                    .integer(Int64(record.width)), .integer(Int64(record.height)), .integer(record.bytes),
                    .text(record.createdAt), .of(record.settings),
                ])
        }
    }

    public func removeThumbnail(path: String) throws {
        try locked { try connection.run("DELETE FROM thumbnails WHERE path = ?", [.text(path)]) }
    }

    private static func thumbnail(_ row: SQLiteRow) -> ThumbnailRecord {
        ThumbnailRecord(
            originalSHA256: row.string(0) ?? "", size: row.string(1) ?? "", path: row.string(2) ?? "",
            format: row.string(3) ?? "", width: row.int(4) ?? 0, height: row.int(5) ?? 0,
            bytes: row.int64(6) ?? 0, createdAt: row.string(7) ?? "", settings: row.string(8))
    }
}
