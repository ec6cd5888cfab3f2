/// Where a library's catalog is kept (`--catalog`, SHOEBOX_CATALOG).
public enum CatalogLocation: Sendable, Equatable, CustomStringConvertible {
    /// LIBRARY/catalog.sqlite, with LIBRARY/journal.jsonl and LIBRARY/.lock (the embedded default).
    case libraryFolder
    /// A PostgreSQL database shared by several machines: a libpq URI, postgres://… or postgresql://….
    /// Durable and shared by itself: no journal, no local writer lock.
    case postgres(uri: String)

    /// For messages: never the password.
    public var description: String {
        switch self {
        case .libraryFolder: return "LIBRARY/catalog.sqlite"
        case .postgres(let uri): return PostgresURI.redacted(uri)
        }
    }

    /// Whether several writers (on several machines) share the catalog: then writers coordinate
    /// through it (unique constraints, path reservations, the work queue), not through a lock file.
    public var isShared: Bool {
        if case .postgres = self { return true }
        return false
    }
}
