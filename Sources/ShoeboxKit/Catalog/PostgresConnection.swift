import CPostgres
import Foundation

/// One libpq connection with its prepared statements and the mapping of libpq failures
/// to `PostgresError`. Not thread-safe by itself: `PostgresCatalog` serialises every use
/// behind its lock.
///
/// Every statement with parameters or results is prepared once per connection (named
/// `shoebox_N`) and then executed with `PQexecPrepared`; transaction control and schema
/// statements go through `PQexec`. A broken connection is never silently replaced: the
/// caller decides when `reconnectIfBroken` may run (outside any transaction).
final class PostgresConnection {
    let uri: PostgresURI
    /// `host:port (database D, user U)`, never a password.
    private(set) var server: String
    private var handle: OpaquePointer?
    /// SQL text → prepared statement name, for this session (lost with a reset).
    private var statements: [String: String] = [:]
    private var nextStatement = 1

    /// Seconds libpq waits for a server to answer when connecting, unless the URI
    /// (`connect_timeout=`) or PGCONNECT_TIMEOUT says otherwise.
    static let defaultConnectTimeout = 10

    init(uri: PostgresURI) throws {
        self.uri = uri
        server = PostgresURI.redacted(uri.text)
        try Self.validate(uri)

        // Earlier entries are overridden by the URI (expanded from `dbname`): the URI wins over
        // our defaults, and explicit entries win over PG* variables, so a default is only
        // given when its variable is unset.
        var keywords = ["fallback_application_name"]
        var values = ["shoebox"]
        if ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] == nil {
            keywords.append("connect_timeout")
            values.append(String(Self.defaultConnectTimeout))
        }
        // A silent network cut is noticed in about 30 s (keepalives; unanswered data), not after
        // the kernel's 15 minutes: calls then fail as a lost connection and are retried within
        // their bound (`ConnectionRetry`) instead of blocking. And the server notices a client
        // that vanished in about 25 s (its keepalives, set for every session, reconnects too),
        // ending its session and freeing its locks. The URI may say otherwise.
        for (keyword, value) in [("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"),
                                 ("keepalives_count", "3"), ("tcp_user_timeout", "30000"),
                                 ("options", "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3")] {
            keywords.append(keyword)
            values.append(value)
        }
        keywords.append("dbname")
        values.append(uri.text)
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw PostgresError.serverUnreachable(server: server, detail: "libpq could not allocate a connection")
        }
        handle = connection
        server = Self.serverName(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            let failure = connectFailure()
            close()
            throw failure
        }
        // Notices (e.g. "relation already exists, skipping") would go to stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { close() }

    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements.removeAll()
    }

    /// Checks the URI with libpq's own parser, so a malformed one is `invalidURI`, not a
    /// connection failure.
    private static func validate(_ uri: PostgresURI) throws {
        var message: UnsafeMutablePointer<CChar>?
        let options = PQconninfoParse(uri.text, &message)
        defer {
            if let options { PQconninfoFree(options) }
            if let message { PQfreemem(message) }
        }
        guard options != nil else {
            let detail = message.map { String(cString: $0) } ?? "libpq could not parse it"
            throw PostgresError.invalidURI(uri: uri.description, detail: uri.scrubbed(Self.oneLine(detail)))
        }
    }

    /// `host:port (database D, user U)` as libpq resolved them (URI, PG* variables, defaults).
    private static func serverName(_ connection: OpaquePointer) -> String {
        let host = PQhost(connection).map { String(cString: $0) } ?? ""
        let port = PQport(connection).map { String(cString: $0) } ?? ""
        let database = PQdb(connection).map { String(cString: $0) } ?? ""
        let user = PQuser(connection).map { String(cString: $0) } ?? ""
        let address: String
        if host.hasPrefix("/") || host.isEmpty {
            address = "socket \(host.isEmpty ? "(default)" : host)/.s.PGSQL.\(port)"
        } else if host.contains(":") {
            address = "[\(host)]:\(port)"
        } else {
            address = "\(host):\(port)"
        }
        return "\(address) (database \(database), user \(user))"
    }

    private var database: String { handle.flatMap { PQdb($0) }.map { String(cString: $0) } ?? "" }
    private var user: String { handle.flatMap { PQuser($0) }.map { String(cString: $0) } ?? "" }

    private var errorMessage: String {
        uri.scrubbed(handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "")
    }

    /// Sorts a failed connection attempt into unreachable / authentication / missing database.
    private func connectFailure() -> PostgresError {
        let message = errorMessage
        // libpq 15: `connection to server at "H" (ADDR), port P failed: REASON` per address tried,
        // then hint lines starting with a tab.
        var reasons: [String] = []
        for line in message.split(separator: "\n") where !line.hasPrefix("\t") {
            var reason = String(line)
            if let failed = reason.range(of: " failed: ") { reason = String(reason[failed.upperBound...]) }
            reason = reason.replacingOccurrences(of: "FATAL:  ", with: "").trimmingCharacters(in: .whitespaces)
            if !reason.isEmpty && !reasons.contains(reason) { reasons.append(reason) }
        }
        let detail = reasons.isEmpty ? Self.oneLine(message) : reasons.joined(separator: "; ")
        if message.contains("database \"") && message.contains("does not exist") {
            return .databaseMissing(server: server, database: database)
        }
        if message.contains("authentication failed") || message.contains("no password supplied")
            || (message.contains("role \"") && message.contains("does not exist")) || message.contains("pg_hba.conf")
        {
            return .authenticationFailed(server: server, user: user, detail: detail)
        }
        return .serverUnreachable(server: server, detail: detail)
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    // MARK: State

    var isBroken: Bool { handle.map { PQstatus($0) != CONNECTION_OK } ?? true }

    /// Inside a transaction block (idle in it, or in one a failed statement aborted).
    var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Inside a transaction a failed statement aborted: only ROLLBACK (TO SAVEPOINT) helps.
    var isInFailedTransaction: Bool { handle.map { PQtransactionStatus($0) == PQTRANS_INERROR } ?? false }

    /// After a lost connection, tries once to connect again (prepared statements are made
    /// anew). Only call this outside a transaction: what the old session had not committed is gone.
    func reconnectIfBroken() throws {
        guard let handle else { throw PostgresError.closed(server: server) }
        guard PQstatus(handle) != CONNECTION_OK else { return }
        statements.removeAll()
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let failure = connectFailure()
            if case let .serverUnreachable(server, detail) = failure {
                throw PostgresError.connectionLost(server: server, detail: "reconnecting failed: \(detail)")
            }
            throw failure
        }
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        sessions += 1
    }

    /// How many sessions this connection has had (1, plus one per reconnect): what a session
    /// held (advisory locks) must be taken again when it changes.
    private(set) var sessions = 1

    // MARK: Statements

    /// Requests sent so far, each one round trip to the server: statements, and the preparation
    /// of each statement once per session (for tests and benchmarks of batching).
    private(set) var roundTrips = 0

    /// Runs SQL without parameters (transaction control, schema statements).
    func execute(_ sql: String) throws {
        let handle = try liveHandle()
        roundTrips += 1
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs a prepared statement, calling `row` for every result row.
    @discardableResult
    func query<T>(_ sql: String, _ values: [PostgresValue] = [], _ row: (PostgresRow) throws -> T) throws -> [T] {
        let handle = try liveHandle()
        let name = try prepared(sql, parameterCount: values.count, handle: handle)
        roundTrips += 1
        let result = Self.withCStrings(values.map(\.parameter)) { parameters in
            PQexecPrepared(handle, name, Int32(values.count), parameters, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result)
        guard let result else { return [] }
        var rows: [T] = []
        let count = PQntuples(result)
        rows.reserveCapacity(Int(count))
        for index in 0..<count { rows.append(try row(PostgresRow(result: result, row: index))) }
        return rows
    }

    /// Runs a prepared statement in single-row mode, handing each row to `row` as it arrives
    /// (nothing is collected: a result of millions of rows is never in memory); `row` returns
    /// false to stop, and the rest of the query is cancelled on the server.
    func stream(_ sql: String, _ values: [PostgresValue], _ row: (PostgresRow) throws -> Bool) throws {
        let handle = try liveHandle()
        let name = try prepared(sql, parameterCount: values.count, handle: handle)
        roundTrips += 1
        let sent = Self.withCStrings(values.map(\.parameter)) { parameters in
            PQsendQueryPrepared(handle, name, Int32(values.count), parameters, nil, nil, 0)
        }
        guard sent == 1 else { throw failure(nil) }
        PQsetSingleRowMode(handle)
        var finished = false
        var firstError: Error?
        // Every result is read to the end, even after a stop: the connection is then ready for the next call.
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE:
                guard !finished else { continue }
                do {
                    if try !row(PostgresRow(result: result, row: 0)) {
                        finished = true
                        Self.cancel(handle)
                    }
                } catch {
                    (finished, firstError) = (true, error)
                    Self.cancel(handle)
                }
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                continue
            default:
                // After a stop, the server's "canceling statement" is the expected end.
                if !finished { (finished, firstError) = (true, failure(result)) }
            }
        }
        if let firstError { throw firstError }
    }

    /// Asks the server to stop the statement running on `handle` (a no-op when it has ended).
    private static func cancel(_ handle: OpaquePointer) {
        guard let request = PQgetCancel(handle) else { return }
        defer { PQfreeCancel(request) }
        var message = [CChar](repeating: 0, count: 256)
        _ = PQcancel(request, &message, Int32(message.count))
    }

    /// Runs a prepared statement whose result rows do not matter.
    func run(_ sql: String, _ values: [PostgresValue] = []) throws {
        try query(sql, values) { _ in () }
    }

    private func liveHandle() throws -> OpaquePointer {
        guard let handle else { throw PostgresError.closed(server: server) }
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError.connectionLost(server: server, detail: "the connection is broken; " + Self.oneLine(errorMessage))
        }
        return handle
    }

    private func prepared(_ sql: String, parameterCount: Int, handle: OpaquePointer) throws -> String {
        if let name = statements[sql] { return name }
        let name = "shoebox_\(nextStatement)"
        nextStatement += 1
        roundTrips += 1
        let result = PQprepare(handle, name, sql, Int32(parameterCount), nil)
        defer { PQclear(result) }
        try check(result)
        statements[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?) throws {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        }
        throw failure(result)
    }

    /// The typed error for a failed statement, by connection state and SQLSTATE.
    private func failure(_ result: OpaquePointer?) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue ?? 0)) else { return nil }
            return uri.scrubbed(String(cString: value))
        }
        let sqlState = field("C") ?? ""
        let primary = field("M") ?? Self.oneLine(errorMessage)
        var detail = [primary, field("D")].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
        while detail.hasSuffix(".") { detail.removeLast() }
        if isBroken || sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") {
            let text = detail.isEmpty ? Self.oneLine(errorMessage) : detail
            return .connectionLost(server: server, detail: text.isEmpty ? "the server closed the connection" : text)
        }
        if sqlState.hasPrefix("23") {
            return .constraint(server: server, constraint: field("n") ?? "", detail: detail)
        }
        if sqlState == "3D000" { return .databaseMissing(server: server, database: database) }
        if sqlState.hasPrefix("28") { return .authenticationFailed(server: server, user: user, detail: detail) }
        return .server(server: server, sqlState: sqlState.isEmpty ? "?????" : sqlState, detail: detail)
    }

    /// Calls `body` with a C array of the strings (NULL for nil), valid only during the call.
    private static func withCStrings<R>(
        _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
