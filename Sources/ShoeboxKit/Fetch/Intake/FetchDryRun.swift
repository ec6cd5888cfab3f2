import Foundation

/// `fetch --dry-run`: reads the lists as a fetch would and says, for each line, whether
/// it would be fetched, skipped (archived: the lookup a fetch makes) or refused, without
/// any request and without writing anything: no lock, no folder, no catalog is created;
/// an existing catalog is opened read-only.
public enum FetchDryRun {
    /// Calls `report` for each URL in the order a fetch would take them (command-line URLs,
    /// then the lists); stops early once `isCancelled` says so. Throws for an unreadable list
    /// or library.
    public static func run(_ configuration: FetchRun.Configuration, isCancelled: () -> Bool = { false },
                           report: (DryRunStep) -> Void) throws {
        guard !configuration.lists.isEmpty || !configuration.urls.isEmpty else { throw FetchRunError.nothingToFetch }
        try URLListReader.checkReadable(configuration.lists)
        let layout = configuration.layout
        try LibraryAccess.requireReadable(layout)
        let library = Library.unchecked(configuration.library)
        // Without a writer at work and with no WAL left, the catalog file is all there is:
        // opened immutable, SQLite creates no -shm/-wal beside it. Otherwise those exist already.
        let idle = access(layout.catalog + "-wal", F_OK) != 0 && library.currentWriter == nil
        let catalog: Catalog? = library.hasCatalog
            ? try library.openCatalog(readOnly: true, checkIntegrity: false, immutable: idle) : nil
        defer { catalog?.close() }
        let seen = URLDeduplicator()

        func consider(_ entry: URLListReader.Entry?, origin: String, given: String) throws {
            switch entry {
            case nil:
                report(DryRunStep(action: .refuse, url: URLValidator.withoutPassword(given), origin: origin, reason: "empty URL"))
            case .invalid(let origin, let line, let reason):
                report(DryRunStep(action: .refuse, url: URLValidator.withoutPassword(line), origin: origin, reason: reason))
            case .url(let item):
                guard seen.insert(item.identity) else {
                    return report(DryRunStep(action: .refuse, url: item.recordedURL, origin: item.origin,
                                             reason: "listed before: fetched once"))
                }
                try report(step(for: item, catalog: catalog, refresh: configuration.options.refresh))
            }
        }

        for url in configuration.urls {
            if isCancelled() { return }
            try consider(URLListReader.parse(url, origin: "--url"), origin: "--url", given: url)
        }
        let reader = configuration.listReader(configuration.lists)
        while !isCancelled(), let entry = try reader.next() {
            try consider(entry, origin: "", given: "")
        }
    }

    private static func step(for item: FetchItem, catalog: Catalog?, refresh: Bool) throws -> DryRunStep {
        guard let catalog, let known = try catalog.source(of: item), let sha256 = known.sha256 else {
            return DryRunStep(action: .fetch, url: item.recordedURL, origin: item.origin)
        }
        let original = try catalog.original(sha256: sha256)
        if refresh {
            return DryRunStep(action: .fetch, url: item.recordedURL, origin: item.origin, path: original?.path, reason: "revalidate")
        }
        return DryRunStep(action: .skip, url: item.recordedURL, origin: item.origin, path: original?.path,
                          reason: "already in the library")
    }
}
