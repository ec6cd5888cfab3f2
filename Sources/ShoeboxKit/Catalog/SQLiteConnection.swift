import CSQLite
import Foundation

/// One SQLite connection with a cache of prepared statements and the mapping of
/// SQLite result codes to `CatalogError`. Not thread-safe by itself: `SQLiteCatalog`
/// serialises every use behind its lock.
final class SQLiteConnection {
    let path: String
    let readOnly: Bool
    private var handle: OpaquePointer?
    private var cache: [String: OpaquePointer] = [:]

    /// `SQLITE_TRANSIENT`: SQLite copies bound text before `bind` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// `immutable` (read-only only): open without the `-shm`/`-wal` files, creating none
    /// (`fetch --dry-run` leaves the library as it was, when no writer is at work).
    init(path: String, readOnly: Bool, immutable: Bool = false) throws {
        self.path = path
        self.readOnly = readOnly
        var flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var name = path
        if readOnly && (immutable || Self.needsImmutableOpen(path)) {
            name = "file:" + Self.uriEscaped(path) + "?immutable=1"
            flags |= SQLITE_OPEN_URI
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        handle = db
        guard code == SQLITE_OK, db != nil else {
            let failure = error(code, "opening")
            close()
            throw failure
        }
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    /// A WAL database on read-only media (or in a folder we may not write) cannot get
    /// the `-shm` file readers need; no writer can change it there, so it is opened
    /// as immutable instead.
    private static func needsImmutableOpen(_ path: String) -> Bool {
        access(FolderPath.containing(path), W_OK) != 0 && access(path + "-shm", F_OK) != 0
    }

    private static func uriEscaped(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// Finalizes every cached statement and closes the database (checkpointing the WAL).
    func close() {
        for statement in cache.values { sqlite3_finalize(statement) }
        cache.removeAll()
        if let db = handle { sqlite3_close_v2(db) }
        handle = nil
    }

    /// Whether SQLite opened the file read-only although read-write was asked for.
    var isReadOnlyHandle: Bool { handle.map { sqlite3_db_readonly($0, "main") == 1 } ?? true }

    var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    func setBusyTimeout(milliseconds: Int32) {
        if let db = handle { sqlite3_busy_timeout(db, milliseconds) }
    }

    /// Runs SQL without parameters or results (pragmas, DDL, transaction control).
    func execute(_ sql: String) throws {
        guard let db = handle else { throw CatalogError.sqlite(path: path, code: SQLITE_MISUSE, detail: "catalog is closed") }
        let code = sqlite3_exec(db, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql) }
    }

    /// Runs a statement, calling `row` for every result row.
    @discardableResult
    func query<T>(_ sql: String, _ values: [SQLiteValue] = [], _ row: (SQLiteRow) throws -> T) throws -> [T] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(values, to: statement, sql: sql)
        var results: [T] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return results }
            guard code == SQLITE_ROW else { throw error(code, sql) }
            results.append(try row(SQLiteRow(statement: statement)))
        }
    }

    /// Runs a statement, handing each result row to `row` as SQLite steps to it (nothing is
    /// collected); `row` returns false to stop.
    func each(_ sql: String, _ values: [SQLiteValue], _ row: (SQLiteRow) throws -> Bool) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(values, to: statement, sql: sql)
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw error(code, sql) }
            guard try row(SQLiteRow(statement: statement)) else { return }
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        try query(sql, values) { _ in () }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = cache[sql] { return statement }
        guard let db = handle else { throw CatalogError.sqlite(path: path, code: SQLITE_MISUSE, detail: "catalog is closed") }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, sql) }
        cache[sql] = statement
        return statement
    }

    private func bind(_ values: [SQLiteValue], to statement: OpaquePointer, sql: String) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .text(let text): code = sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
            case .real(let number): code = sqlite3_bind_double(statement, index, number)
            case .null: code = sqlite3_bind_null(statement, index)
            }
            guard code == SQLITE_OK else { throw error(code, sql) }
        }
    }

    /// Maps a SQLite result code (with the connection's current message) to a typed error.
    func error(_ code: Int32, _ context: String) -> CatalogError {
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let detail = "\(message) [\(Self.summary(of: context))]"
        switch code & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return .corrupt(path: path, detail: message)
        case SQLITE_FULL:
            return .diskFull(path: path, detail: message)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return .busy(path: path, detail: message)
        case SQLITE_CONSTRAINT:
            return .constraint(path: path, detail: message)
        case SQLITE_READONLY, SQLITE_PERM:
            return .unwritable(path: path, detail: message)
        case SQLITE_CANTOPEN:
            return readOnly ? .unreadable(path: path, detail: message) : .unwritable(path: path, detail: message)
        case SQLITE_IOERR:
            return ioError(code, message)
        default:
            return .sqlite(path: path, code: code, detail: detail)
        }
    }

    private func ioError(_ code: Int32, _ message: String) -> CatalogError {
        let readCodes: Set<Int32> = [SQLITE_IOERR | (1 << 8), SQLITE_IOERR | (2 << 8)]  // IOERR_READ, IOERR_SHORT_READ
        if readCodes.contains(code) { return .unreadable(path: path, detail: "I/O error: \(message)") }
        if let db = handle, sqlite3_system_errno(db) == ENOSPC { return .diskFull(path: path, detail: message) }
        return .unwritable(path: path, detail: "I/O error: \(message)")
    }

    private static func summary(of sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return flat.count > 60 ? String(flat.prefix(60)) + "…" : flat
    }
}
