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
