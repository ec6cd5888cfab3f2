import Foundation

/// Why a PostgreSQL catalog could not be reached, read or written. Every message names the
/// server as `host:port`, the database and the user — never a password — and says what to
/// do next. `server` is `PostgresServerName.description`.
public enum PostgresError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The catalog address is not a `postgres://` or `postgresql://` URI libpq accepts.
    case invalidURI(uri: String, detail: String)
    /// No server answered (down, wrong host or port, firewall, timeout).
    case serverUnreachable(server: String, detail: String)
    /// The server refused the user or its password.
    case authenticationFailed(server: String, user: String, detail: String)
    /// The server runs, but has no database of that name.
    case databaseMissing(server: String, database: String)
    /// The connection broke while in use (server stopped or restarted, network lost). Whatever
    /// the current transaction wrote was not committed, unless the break came during COMMIT
    /// (then the server may have committed it).
    case connectionLost(server: String, detail: String)
    /// A write broke a rule of the schema (duplicate sha256 or path, unknown original).
    /// `constraint` is the name of the constraint or index (e.g. `originals_pkey`).
    case constraint(server: String, constraint: String, detail: String)
    /// The database holds tables that are not a Shoebox catalog (no schema_version in `meta`).
    case notACatalog(server: String, detail: String)
    /// The catalog was written by a newer shoebox with a schema this one does not know.
    case schemaTooNew(server: String, found: Int, supported: Int)
    /// The catalog was closed; no call may follow `close()`.
    case closed(server: String)
    /// Any other failure reported by the server, with its SQLSTATE.
    case server(server: String, sqlState: String, detail: String)

    public var description: String {
        switch self {
        case let .invalidURI(uri, detail):
            return "invalid PostgreSQL catalog address \(uri): \(detail). "
                + "Use postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (PG* environment variables fill in what is left out)."
        case let .serverUnreachable(server, detail):
            return "cannot reach the PostgreSQL server \(server): \(detail). "
                + "Check that the server is running and accepts TCP connections on that host and port."
        case let .authenticationFailed(server, user, detail):
            return "the PostgreSQL server \(server) refused user \(user): \(detail). "
                + "Check the user name and password (in the URI, PGPASSWORD or ~/.pgpass) and the server's pg_hba.conf."
        case let .databaseMissing(server, database):
            return "the PostgreSQL server \(server) has no database \"\(database)\". "
                + "Create it (createdb \(database), or CREATE DATABASE) or correct the name in the catalog address."
        case let .connectionLost(server, detail):
            return "lost the connection to the PostgreSQL server \(server): \(detail). "
                + "The current batch may not be recorded (if the connection broke during its commit, it may be); "
                + "check the server and run the command again: a rerun skips what was recorded."
        case let .constraint(server, constraint, detail):
            return "the catalog on \(server) refused a write (\(constraint)): \(detail). "
                + "This is a bug in the caller; nothing was recorded."
        case let .notACatalog(server, detail):
            return "the database on \(server) is not a Shoebox catalog (\(detail)); it was left untouched. "
                + "Name an empty database or one made by shoebox."
        case let .schemaTooNew(server, found, supported):
            return "the catalog on \(server) has schema version \(found) but this shoebox \(Shoebox.version) understands "
                + "up to version \(supported); upgrade shoebox to use this catalog."
        case let .closed(server):
            return "the catalog on \(server) was closed; this is a bug in the caller."
        case let .server(server, sqlState, detail):
            return "PostgreSQL error \(sqlState) from \(server): \(detail)."
        }
    }

    /// Whether the error is a uniqueness or foreign-key refusal (`constraint`).
    public var isConstraintViolation: Bool {
        if case .constraint = self { return true }
        return false
    }
}
