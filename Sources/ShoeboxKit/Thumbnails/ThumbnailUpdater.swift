import Foundation

/// `shoebox thumbs` on a library: makes the thumbnails of every original the
/// catalog lists, records them in the catalog (in batched transactions), tags
/// the folder as a cache and, when asked, prunes thumbnails of uncatalogued originals.
public final class ThumbnailUpdater: @unchecked Sendable {
    public let libraryRoot: String
    public let catalog: Catalog
    public let options: ThumbnailOptions
    /// Catalog writes are committed this many at a time.
    public var batchSize = 64
    let engine: ThumbnailEngine
    /// Where thumbnail rows are journaled before they are committed (nil: nowhere, for a
    /// catalog that is durable and shared by itself).
    private var openChangeLog: () throws -> ChangeLog?

    /// Thumbnails of `library`'s originals, recorded in `catalog`.
    public convenience init(library: Library, catalog: Catalog, options: ThumbnailOptions) throws {
        self.init(libraryRoot: library.layout.root, catalog: catalog, options: options)
        engine.store = try library.store()
        openChangeLog = { try library.openChangeLog() }
    }

    public init(libraryRoot: String, catalog: Catalog, options: ThumbnailOptions) {
        self.libraryRoot = libraryRoot
        self.catalog = catalog
        self.options = options
        engine = ThumbnailEngine(libraryRoot: libraryRoot, options: options)
        openChangeLog = { try Journal(path: LibraryLayout(root: libraryRoot).journal) }
    }

    /// Stops after the images in progress; safe from any thread (a signal handler's queue).
    public func cancel() {
        engine.cancel()
    }

    /// Runs over every original; `onEvent` sees each event on the calling thread.
    public func run(prune: Bool, onEvent: (ThumbnailEvent) -> Void = { _ in }) throws -> ThumbnailSummary {
        try CacheDirectoryTag.ensure(in: libraryRoot + "/" + ThumbnailLayout.folder)
        var summary = ThumbnailSummary()
        // What a killed run was writing; no other writer runs meanwhile (the library lock).
        summary.leftoversRemoved = ThumbnailLayout.removeLeftovers(in: libraryRoot)
        let originals = try catalog.allOriginals()
        let sources = originals.map { ThumbnailSource(path: $0.path, sha256: $0.sha256, bytes: $0.bytes) }
        let recorded = Dictionary(try catalog.allThumbnails().map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        summary.originals = sources.count
        var failedOriginals = Set<String>()
        var batch: [ThumbnailRecord] = []
        // Journaled before the catalog commit, like originals, so `reindex` restores thumbnail rows too.
        let journal = try openChangeLog()
        func flush() throws {
            guard !batch.isEmpty else { return }
            let records = batch
            batch = []
            try journal?.append(records.map(JournalEntry.thumbnailRecorded))
            try catalog.transaction { for record in records { try catalog.upsertThumbnail(record) } }
        }
        do {
            try engine.run(sources, recorded: recorded) { event in
                switch event {
                case .made(let record, _, _):
                    summary.made += 1
                    batch.append(record)
                case .found(let record):
                    batch.append(record)
                case .upToDate:
                    summary.upToDate += 1
                case .failed(let source, let error):
                    failedOriginals.insert(source.path)
                    if error.isDiskFull { throw error }  // nothing more can be written: stop the run
                case .finished:
                    break
                }
                if batch.count >= batchSize { try flush() }
                onEvent(event)
            }
        } catch let error as ThumbnailError where error.isDiskFull {
            // Record what was made, if the catalog still can, then end with the one message.
            try? flush()
            throw error
        }
        try flush()
        summary.failed = failedOriginals.count
        summary.cancelled = engine.isCancelled
        if prune && !summary.cancelled {
            // A catalogued original whose file is missing keeps its thumbnails: verify tells the
            // user to restore the file, and meanwhile they may be the only preview left.
            let live = Set(originals.map { Array($0.path.utf8) })
            summary.pruned = try ThumbnailPruner(libraryRoot: libraryRoot).prune(liveOriginals: live, catalog: catalog, journal: journal).count
        }
        return summary
    }
}
