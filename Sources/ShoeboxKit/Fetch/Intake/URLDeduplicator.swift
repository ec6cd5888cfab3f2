/// Remembers which URLs were seen, as 16-byte keys (two independently seeded
/// 64-bit hashes).
///
/// The first `memoryLimit` keys are kept in memory. Past that, every key moves
/// to a private temporary SQLite database (deleted by SQLite when closed, and
/// already unlinked while open, so a crash leaves nothing behind) with a 16 MiB
/// page cache: memory then stays flat however long the list is (a 1,000,000-line
/// list peaked at 92 MB with every key in memory, at 61 MB this way). A key costs
/// about 6 microseconds on disk against 1 in memory, next to milliseconds per
/// transfer. If the temporary database cannot be used, keys stay in memory.
final class URLDeduplicator {
    private struct Key: Hashable {
        let first: Int
        let second: Int
    }

    static let defaultMemoryLimit = 100_000
    private let memoryLimit: Int
    private var inMemory: Set<Key> = []
    private var onDisk: SQLiteConnection?
    private var spillFailed = false

    /// Whether the keys have moved to the temporary database.
    var isOnDisk: Bool { onDisk != nil }

    init(memoryLimit: Int = URLDeduplicator.defaultMemoryLimit) {
        self.memoryLimit = memoryLimit
    }

    /// True the first time a URL is offered.
    func insert(_ url: String) -> Bool {
        var first = Hasher()
        first.combine(url)
        var second = Hasher()
        second.combine(0x5EED)
        second.combine(url)
        let key = Key(first: first.finalize(), second: second.finalize())
        if let onDisk {
            if let inserted = try? insert(key, into: onDisk) { return inserted }
            // The temporary file stopped taking keys (disk full): new ones stay in memory.
            if (try? contains(key, in: onDisk)) == true { return false }
        }
        let inserted = inMemory.insert(key).inserted
        if inserted && inMemory.count > memoryLimit && onDisk == nil && !spillFailed { spill() }
        return inserted
    }

    private func insert(_ key: Key, into database: SQLiteConnection) throws -> Bool {
        try !database.query(
            "INSERT INTO seen (first, second) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING 1",
            [.integer(Int64(key.first)), .integer(Int64(key.second))]) { _ in () }.isEmpty
    }

    private func contains(_ key: Key, in database: SQLiteConnection) throws -> Bool {
        try !database.query("SELECT 1 FROM seen WHERE first = ? AND second = ?",
                            [.integer(Int64(key.first)), .integer(Int64(key.second))]) { _ in () }.isEmpty
    }

    /// Moves the keys to disk; on any failure they stay in memory.
    private func spill() {
        do {
            let database = try SQLiteConnection(path: "", readOnly: false)
            try database.execute("""
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384;
                CREATE TABLE seen (first INTEGER NOT NULL, second INTEGER NOT NULL, PRIMARY KEY (first, second)) WITHOUT ROWID;
                BEGIN;
                """)
            for key in inMemory { _ = try insert(key, into: database) }
            onDisk = database
            inMemory = []
        } catch {
            spillFailed = true
        }
    }
}
