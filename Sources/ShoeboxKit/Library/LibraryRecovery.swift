/// Finishes or undoes what a crash interrupted, before a writer starts:
/// partial downloads are removed; staged content whose catalog row was committed
/// is published; staged content without a row is dropped.
public enum LibraryRecovery {
    public struct Report: Equatable {
        public var partialsRemoved = 0
        public var published = 0
        public var dropped = 0
    }

    @discardableResult
    public static func run(store: OriginalStore, catalog: Catalog) throws -> Report {
        var report = Report()
        report.partialsRemoved = try store.removePartialDownloads()
        for sha256 in try store.pendingStaged() {
            // Content restoring a missing original is staged before it is synced (its row
            // exists already): only whole content is published.
            if let original = try catalog.original(sha256: sha256), !store.exists(path: original.path),
               store.stagedContentMatches(sha256: sha256) {
                try store.publish(sha256: sha256, to: original.path)
                report.published += 1
            } else {
                store.discardStaged(sha256: sha256)
                report.dropped += 1
            }
        }
        return report
    }
}
