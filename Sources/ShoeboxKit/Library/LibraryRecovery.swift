/// Finishes or undoes what a crash interrupted, before a writer starts:
/// partial downloads are removed; staged content whose original was recorded (a
/// committed catalog row for fetch, a journal entry for reindex) is published when
/// its bytes still hash to its name; any other staged content is dropped.
///
/// The one owner of that rule: fetch (`run(store:catalog:)`) and reindex
/// (`run(store:recordFor:)`) both come here, so torn bytes never become an original.
public enum LibraryRecovery {
    public struct Report: Equatable {
        public var partialsRemoved = 0
        public var published = 0
        public var dropped = 0
        /// Paths where other bytes are in the way of a recorded original: its staged content
        /// is kept (it may be the only copy), never dropped.
        public var blocked: [String] = []
    }

    /// Recovery against the catalog: staged content is published when its row was committed.
    @discardableResult
    public static func run(store: OriginalStore, catalog: Catalog) throws -> Report {
        try run(store: store) { try catalog.original(sha256: $0) }
    }

    /// Recovery for a writer sharing its catalog (PostgreSQL) with others: its own staging
    /// folder is new, so what is left to finish is other, dead writers': multipart uploads
    /// they abandoned (the store's own sweep), and objects they published for a batch they
    /// never committed. Those sit at paths still reserved for them: an object at a stale
    /// reservation's path with no catalogued original there, holding the reserved content, is
    /// removed (its URL was not recorded either, so the list's next run fetches it again);
    /// a path with a catalogued original is left alone. Other writers' live reservations are
    /// never touched.
    @discardableResult
    public static func run(store: OriginalStore, sharedCatalog catalog: PostgresCatalog,
                           staleAfter age: Double = staleReservationAge) throws -> Report {
        var report = Report()
        report.partialsRemoved = try store.removePartialDownloads()
        for stale in try catalog.staleReservations(olderThan: age) {
            // Taken over first: another writer's recovery may have ended it already, and the path
            // been reserved and published again since (then its object is no dead writer's).
            guard let reservation = try catalog.takeOver(stale) else { continue }
            if try catalog.original(path: reservation.path) == nil,
               let held = try store.info(path: reservation.path),
               (held.sha256 ?? reservation.sha256) == reservation.sha256,
               try store.contentMatches(path: reservation.path, sha256: reservation.sha256) {
                try store.remove(path: reservation.path)
                report.dropped += 1
            }
            try catalog.dropReservation(reservation)
        }
        return report
    }

    /// Seconds after which a dead writer's reservation is taken for abandoned: longer than
    /// any batch takes between reserving its paths and committing. The default of
    /// SHOEBOX_STALE_RESERVATION_SECONDS (see `staleReservationAge(requested:retryBound:)`).
    public static let staleReservationAge: Double = 600

    /// The stale age in effect: `requested` (SHOEBOX_STALE_RESERVATION_SECONDS, else
    /// `staleReservationAge`), never below twice `retryBound`, the seconds a writer whose
    /// connection broke keeps trying before it gives up (`ConnectionRetry.bound`). Such a
    /// writer's advisory lock is free while it reconnects, and it may still commit the batch
    /// its reservations are for: its objects must not be taken for abandoned meanwhile.
    public static func staleReservationAge(requested: Double?, retryBound: Double) -> Double {
        max(requested ?? staleReservationAge, 2 * retryBound)
    }

    /// Recovery against any record of the originals: `recordFor` gives the record of a hash, if any.
    @discardableResult
    public static func run(store: OriginalStore, recordFor: (String) throws -> OriginalRecord?) throws -> Report {
        var report = Report()
        report.partialsRemoved = try store.removePartialDownloads()
        for sha256 in try store.pendingStaged() {
            // Content restoring a missing original is staged before it is synced (its row
            // exists already), and after a power loss a rename can be on disk without the
            // bytes it named: only content that still hashes to its name is published.
            guard let original = try recordFor(sha256) else {
                store.discardStaged(sha256: sha256)
                report.dropped += 1
                continue
            }
            if try !store.exists(path: original.path) {
                if store.stagedContentMatches(sha256: sha256) {
                    try store.publish(sha256: sha256, to: original.path)
                    report.published += 1
                } else {
                    store.discardStaged(sha256: sha256)
                    report.dropped += 1
                }
            } else if try store.contentMatches(path: original.path, sha256: sha256) {
                store.discardStaged(sha256: sha256)  // in place already
                report.dropped += 1
            } else {
                report.blocked.append(original.path)
            }
        }
        return report
    }
}
