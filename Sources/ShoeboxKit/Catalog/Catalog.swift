/// What is known about the originals: the embedded default is SQLite
/// (`SQLiteCatalog`); a shared PostgreSQL catalog can implement the same protocol.
///
/// Writes are grouped with `transaction`: the fetch engine records a batch of
/// finished downloads in one commit.
///
/// Races, as an implementation must honour them: `insertOriginal` fails on a sha256
/// or path already recorded (a unique constraint, never check-then-insert across
/// writers); `insertOriginalIfAbsent` is the same insert that reports "already there"
/// instead of failing; `reservePath` gives a library path to one writer's original
/// before its bytes are stored (compared case-folded, against originals and other
/// reservations), so two writers never pick the same name; `sources(urls:)` answers
/// many lookups at once (one round trip to a remote catalog); whole-table reads
/// (`all…`) are for small tables and tests, `originals(after:limit:)` pages through any size.
public protocol Catalog: AnyObject {
    /// Runs `body` in one transaction: all its writes are committed together or not at all.
    func transaction<T>(_ body: () throws -> T) throws -> T

    func original(sha256: String) throws -> OriginalRecord?
    func original(path: String) throws -> OriginalRecord?
    /// Whether an original's path equals `path` ignoring case, letters outside ASCII included
    /// (`CaseFoldedPath`): IMG_1.jpg and img_1.JPG, or Été.jpg and été.jpg, cannot both live in
    /// one folder once a library is copied to macOS or exFAT.
    func hasOriginal(pathIgnoringCase path: String) throws -> Bool
    /// Inserts a new original; fails if its sha256 or path is already recorded.
    func insertOriginal(_ record: OriginalRecord) throws
    /// Records the lens and exposure of an original whose lens or exposure is not known
    /// (catalogued before they were); a known value is left as it is.
    func recordMetadata(lens: String, exposure: String, sha256: String) throws
    /// Inserts `record` unless an original with its sha256 is recorded; false when one is
    /// (then nothing changes). Atomic: two writers inserting the same content get one row.
    func insertOriginalIfAbsent(_ record: OriginalRecord) throws -> Bool
    /// Reserves `path` for the original `sha256` unless an original or another reservation
    /// holds it, ignoring case as `hasOriginal(pathIgnoringCase:)` does: true when this call
    /// got it. Atomic among writers. A reservation ends with `releaseReservations` (once the
    /// batch that uses it is committed or dropped) or with the writer.
    func reservePath(_ path: String, for sha256: String) throws -> Bool
    /// Ends this writer's reservations.
    func releaseReservations() throws
    /// `reservePath` for many paths at once, in order (one round trip to a remote catalog):
    /// those granted. A path wanted twice (ignoring case) goes to its first asker only.
    func reservePaths(_ wanted: [PathReservation]) throws -> Set<PathReservation>
    /// `original(sha256:)` for many hashes at once: the originals found, by hash.
    func originals(sha256s: [String]) throws -> [String: OriginalRecord]
    /// `insertOriginalIfAbsent` for many records at once: the hashes of those inserted. The
    /// hashes must differ from one another.
    func insertOriginalsIfAbsent(_ records: [OriginalRecord]) throws -> Set<String>
    /// `upsertSource` for many records at once, in order (a later record of a URL wins).
    func upsertSources(_ records: [SourceRecord]) throws
    /// At most `limit` originals whose path sorts after `path` (from the first when nil),
    /// ordered by path: a paged cursor over the catalog.
    func originals(after path: String?, limit: Int) throws -> [OriginalRecord]
    /// Every original, ordered by path ("library order").
    func allOriginals() throws -> [OriginalRecord]
    /// The originals `query` selects, in its order, at most `limit` of them (nil: all), one
    /// at a time to `each` as the catalog yields them (never all in memory); `each` returns
    /// false to stop early. Answered from the catalog alone, with bound parameters.
    func originals(matching query: OriginalQuery, limit: Int?, _ each: (OriginalRecord) throws -> Bool) throws
    /// The library paths of `originals(matching:limit:_:)`, the same ones in the same order:
    /// for `list --paths`, read from the indexes alone where they hold path (no table lookups).
    func originalPaths(matching query: OriginalQuery, limit: Int?, _ each: (String) throws -> Bool) throws
    func countOriginals() throws -> Int

    func source(url: String) throws -> SourceRecord?
    /// The records of those of `urls` the catalog has, by URL: a batched `source(url:)`.
    func sources(urls: [String]) throws -> [String: SourceRecord]
    /// Whether any source is recorded (an empty catalog has no URL to skip).
    func hasSources() throws -> Bool
    /// Inserts or replaces the row for `record.url`.
    func upsertSource(_ record: SourceRecord) throws
    func sources(sha256: String) throws -> [SourceRecord]
    /// Records `version`, or (known already) its latest fetch. `upsertSource` does it for a
    /// record that names content; reindex replays the journal's older versions with it.
    func upsertSourceVersion(_ version: SourceVersion) throws
    /// Every URL that ever gave the content `sha256`, the most recently fetched first.
    func sourceVersions(sha256: String) throws -> [SourceVersion]
    /// Every content `url` ever gave, the most recently fetched first.
    func sourceVersions(url: String) throws -> [SourceVersion]
    /// Every source, ordered by URL.
    func allSources() throws -> [SourceRecord]
    func countSources() throws -> Int

    func thumbnails(sha256: String) throws -> [ThumbnailRecord]
    func allThumbnails() throws -> [ThumbnailRecord]
    /// Inserts or replaces the row for `record.path`.
    func upsertThumbnail(_ record: ThumbnailRecord) throws
    func removeThumbnail(path: String) throws

    /// Ends the connection (also at deinit); no call may follow.
    func close()
}

/// A library path wanted for the original `sha256` (`Catalog.reservePaths`).
public struct PathReservation: Sendable, Hashable {
    public var path: String
    public var sha256: String

    public init(path: String, sha256: String) {
        self.path = path
        self.sha256 = sha256
    }
}

extension Catalog {
    /// One `reservePath` after another: right for a local catalog, where a call costs no round trip.
    public func reservePaths(_ wanted: [PathReservation]) throws -> Set<PathReservation> {
        try reservePathsOneByOne(wanted)
    }

    func reservePathsOneByOne(_ wanted: [PathReservation]) throws -> Set<PathReservation> {
        var granted = Set<PathReservation>()
        var asked = Set<String>()
        for reservation in wanted where asked.insert(CaseFoldedPath.fold(reservation.path)).inserted {
            if try reservePath(reservation.path, for: reservation.sha256) { granted.insert(reservation) }
        }
        return granted
    }

    public func originals(sha256s: [String]) throws -> [String: OriginalRecord] {
        try originalsOneByOne(sha256s)
    }

    func originalsOneByOne(_ sha256s: [String]) throws -> [String: OriginalRecord] {
        var found: [String: OriginalRecord] = [:]
        for sha256 in Set(sha256s) { found[sha256] = try original(sha256: sha256) }
        return found
    }

    public func insertOriginalsIfAbsent(_ records: [OriginalRecord]) throws -> Set<String> {
        var inserted = Set<String>()
        for record in records where try insertOriginalIfAbsent(record) { inserted.insert(record.sha256) }
        return inserted
    }

    public func upsertSources(_ records: [SourceRecord]) throws {
        for record in records { try upsertSource(record) }
    }

    /// The paths of the records (what a catalog held in memory does).
    public func originalPaths(matching query: OriginalQuery, limit: Int?, _ each: (String) throws -> Bool) throws {
        try originals(matching: query, limit: limit) { try each($0.path) }
    }

    /// How many originals match `query`, counted up to `bound` (the answer is then `bound`):
    /// a bounded cost however large the catalog.
    public func countOriginals(matching query: OriginalQuery, upTo bound: Int) throws -> Int {
        var count = 0
        try originalPaths(matching: query, limit: bound) { _ in
            count += 1
            return true
        }
        return count
    }

    /// The query answered in memory from `allOriginals` and every URL that gave each
    /// (`sourceVersions`) by `OriginalQuery.matches` and `precedes`: right for a small catalog
    /// held in memory (a test's); the SQL catalogs answer it with their indexes.
    public func originals(matching query: OriginalQuery, limit: Int?, _ each: (OriginalRecord) throws -> Bool) throws {
        let originals = try allOriginals()
        var urls: [String: [String]] = [:]
        for original in originals { urls[original.sha256] = try sourceVersions(sha256: original.sha256).map(\.url) }
        let selected = originals.filter { query.matches($0, sourceURLs: urls[$0.sha256] ?? []) }.sorted(by: query.precedes)
        for record in selected.prefix(limit ?? Int.max) where try !each(record) { return }
    }
}
