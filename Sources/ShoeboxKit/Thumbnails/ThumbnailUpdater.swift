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
    /// How a commit rides out a shared catalog that went away (upserts: safe to repeat); nil
    /// for a library's own catalog.
    var retry: ConnectionRetry?
    let engine: ThumbnailEngine
    /// Where thumbnail rows are journaled before they are committed (nil: nowhere, for a
    /// catalog that is durable and shared by itself).
    private var openChangeLog: () throws -> ChangeLog?

    /// Shares the work with thumbs on other machines (a shared catalog), else nil.
    public let claims: ThumbnailClaims?
    /// Where the thumbnails are kept: beside the originals (`ThumbnailStore`).
    public var thumbnails: ThumbnailStore { engine.thumbnails }

    /// Thumbnails of `library`'s originals, recorded in `catalog`: kept in the library folder,
    /// or in the bucket when the originals are there; with a shared catalog the work is shared
    /// with the other workers through it (`PostgresThumbnailClaims`), each claim lasting `lease`
    /// seconds unless renewed.
    ///
    /// A shared catalog that goes away (a restart, a network cut) is waited for, for
    /// `LibraryConfiguration.catalogRetryBound` seconds, `onCatalogWait` told of each try; then
    /// the run stops with the connection's error.
    public convenience init(library: Library, catalog: Catalog, options: ThumbnailOptions, lease: Double = 60,
                            onCatalogWait: (@Sendable (Error, Double) -> Void)? = nil) throws {
        let store = try library.store()
        var claims: ThumbnailClaims?
        let retry = ConnectionRetry(bound: library.configuration.catalogRetryBound, onRetry: onCatalogWait)
        if case .postgres(let uri) = library.configuration.catalog {
            claims = try PostgresThumbnailClaims(uri: uri, job: Self.job(options), worker: WorkerIdentity.current(), retry: retry)
        }
        // Last: its scratch folder is removed by `run`.
        let thumbnails: ThumbnailStore = try (store as? S3OriginalStore).map { try ObjectThumbnailStore(store: $0) }
            ?? LocalThumbnailStore(libraryRoot: library.layout.root)
        self.init(libraryRoot: library.layout.root, catalog: catalog, options: options, thumbnails: thumbnails, claims: claims)
        if library.isShared { self.retry = retry }
        engine.store = store
        engine.lease = lease
        openChangeLog = { try library.openChangeLog() }
    }

    public init(libraryRoot: String, catalog: Catalog, options: ThumbnailOptions,
                thumbnails: ThumbnailStore? = nil, claims: ThumbnailClaims? = nil) {
        self.libraryRoot = libraryRoot
        self.catalog = catalog
        self.options = options
        self.claims = claims
        engine = ThumbnailEngine(libraryRoot: libraryRoot, options: options, thumbnails: thumbnails)
        engine.claims = claims
        openChangeLog = { try Journal(path: LibraryLayout(root: libraryRoot).journal) }
    }

    /// What workers share: thumbnails of the same sizes made with the same settings.
    public static func job(_ options: ThumbnailOptions) -> String {
        options.sizes.map(\.name).joined(separator: ",") + " " + options.settings
    }

    /// Stops after the images in progress; safe from any thread (a signal handler's queue).
    public func cancel() {
        engine.cancel()
    }

    /// Runs over every original; `onEvent` sees each event on the calling thread.
    public func run(prune: Bool, onEvent: (ThumbnailEvent) -> Void = { _ in }) throws -> ThumbnailSummary {
        defer { thumbnails.finish() }
        var summary = ThumbnailSummary()
        if thumbnails.isLocal {
            try CacheDirectoryTag.ensure(in: libraryRoot + "/" + ThumbnailLayout.folder)
            // What a killed run was writing; no other writer runs meanwhile (the library lock).
            // With a shared catalog there is no lock, and the temp files may be other workers'.
            if claims == nil { summary.leftoversRemoved = ThumbnailLayout.removeLeftovers(in: libraryRoot) }
        }
        // Before anything is read: what other workers finish from now on is theirs.
        try claims?.begin()
        try thumbnails.prepare()
        let originals = try catalog.allOriginals()
        let sources = originals.map { ThumbnailSource(path: $0.path, sha256: $0.sha256, bytes: $0.bytes) }
        let recorded = Dictionary(try catalog.allThumbnails().map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        summary.originals = sources.count
        var failedOriginals = Set<String>()
        var batch: [ThumbnailRecord] = []
        // Originals finished since the last commit (made, failed): their claims are settled after it.
        var worked: Set<String> = []
        var finishedDone: [String] = [], finishedFailed: [String] = []
        // Journaled before the catalog commit, like originals, so `reindex` restores thumbnail rows too.
        let journal = try openChangeLog()
        func flush() throws {
            if !batch.isEmpty {
                let records = batch
                batch = []
                try journal?.append(records.map(JournalEntry.thumbnailRecorded))
                let commit = { try self.catalog.transaction { for record in records { try self.catalog.upsertThumbnail(record) } } }
                if let retry { try retry.run(commit) } else { try commit() }
            }
            if let claims, !(finishedDone.isEmpty && finishedFailed.isEmpty) {
                try claims.finish(done: finishedDone, failed: finishedFailed)
                finishedDone = []
                finishedFailed = []
            }
        }
        do {
            try engine.run(sources, recorded: recorded) { event in
                switch event {
                case .made(let record, let original, _):
                    summary.made += 1
                    batch.append(record)
                    if claims != nil { worked.insert(original) }
                case .found(let record):
                    batch.append(record)
                case .upToDate:
                    summary.upToDate += 1
                case .failed(let source, let error):
                    failedOriginals.insert(source.path)
                    if claims != nil { worked.insert(source.path) }
                    if error.isDiskFull { throw error }  // nothing more can be written: stop the run
                case .waitingForOthers:
                    try flush()
                case .finished(let source):
                    if worked.remove(source.path) != nil {
                        if failedOriginals.contains(source.path) {
                            finishedFailed.append(source.path)
                        } else {
                            finishedDone.append(source.path)
                        }
                    }
                }
                if batch.count >= batchSize { try flush() }
                onEvent(event)
            }
        } catch {
            // Record what was made, if the catalog still can (a full disk, a store or database
            // gone), and let the others have what this worker claimed; then end with the one message.
            try? flush()
            try? claims?.release()
            throw error
        }
        try flush()
        // What this worker claimed and did not finish (Ctrl-C) is for the others at once.
        try claims?.release()
        summary.failed = failedOriginals.count
        summary.elsewhere = engine.settledElsewhere
        summary.cancelled = engine.isCancelled
        if prune && !summary.cancelled {
            // A catalogued original whose file is missing keeps its thumbnails: verify tells the
            // user to restore the file, and meanwhile they may be the only preview left.
            let live = Set(originals.map { Array($0.path.utf8) })
            var pruner = ThumbnailPruner(libraryRoot: libraryRoot, thumbnails: thumbnails)
            pruner.keepsTemporaryFiles = claims != nil  // other workers' files in progress
            summary.pruned = try pruner.prune(liveOriginals: live, catalog: catalog, journal: journal).count
        }
        return summary
    }
}
