import Foundation

/// The composition root: every command opens its library here and gets services
/// (store, catalog, change log, writer coordination), never paths to join. Which
/// implementation backs each service is decided here alone, from the configuration:
/// the embedded default is a local folder with SQLite, a journal and an flock.
public final class Library: @unchecked Sendable {
    public let configuration: LibraryConfiguration
    public var layout: LibraryLayout { configuration.layout }
    /// Held while this object lives, for a library opened with `openForWriting`.
    private let writer: WriterCoordination?
    private let storeBox: LockedBox<OriginalStore?>

    private init(configuration: LibraryConfiguration, writer: WriterCoordination?, store: OriginalStore?) {
        self.configuration = configuration
        self.writer = writer
        storeBox = LockedBox(store)
    }

    /// How a writer that finds the library busy behaves.
    public struct Waiting {
        public var wait: Bool
        public var isCancelled: () -> Bool
        /// Called once when a wait begins, with the holder when known ("pid 1234 (shoebox fetch)").
        public var onWait: (String?) -> Void

        public init(wait: Bool = false, isCancelled: @escaping () -> Bool = { false }, onWait: @escaping (String?) -> Void = { _ in }) {
            self.wait = wait
            self.isCancelled = isCancelled
            self.onWait = onWait
        }
    }

    /// A library a writer changes (fetch creates it when missing; thumbs and reindex need
    /// it to exist): checked readable, the writer's exclusive lock taken, the store opened.
    /// With a shared catalog (PostgreSQL) there is no exclusive lock: writers on several
    /// machines coordinate through the catalog, and each stages in a folder of its own
    /// (`WriterStagingFolder`).
    public static func openForWriting(
        _ configuration: LibraryConfiguration, creating: Bool, waiting: Waiting = Waiting()
    ) throws -> Library {
        let layout = configuration.layout
        if creating {
            try LibraryAccess.requireReadable(layout)
        } else if !configuration.catalog.isShared {
            try layout.requireExisting()
        }
        if configuration.catalog.isShared {
            try bindSharedStore(configuration, writing: true)
            try LocalOriginalStore.makeDirectory(layout.root, library: layout.root)
            let staging = try WriterStagingFolder(parent: layout.staging, library: layout.root)
            let store = try makeStore(configuration, reading: false, staging: staging.path)
            return Library(configuration: configuration, writer: staging, store: store)
        }
        try StoreBinding.check(configuration)
        // The store first: it makes the library folder that holds the lock.
        let store = try makeStore(configuration, reading: !creating)
        if creating { try StoreBinding.record(configuration) }
        let lock = try LibraryLock(layout: layout, mode: .exclusive, wait: waiting.wait,
                                   isCancelled: waiting.isCancelled, onWait: waiting.onWait)
        return Library(configuration: configuration, writer: lock, store: store)
    }

    /// A library read without a writer's lock (inspect, gallery, verify): it must exist.
    /// Nothing is created; the store is opened when first asked for.
    public static func openForReading(_ configuration: LibraryConfiguration) throws -> Library {
        if configuration.catalog.isShared {
            try bindSharedStore(configuration, writing: false)
        } else {
            try configuration.layout.requireExisting()
            try StoreBinding.check(configuration)
        }
        return Library(configuration: configuration, writer: nil, store: nil)
    }

    /// A library looked at only if it exists (fetch --dry-run): nothing is checked or created.
    public static func unchecked(_ configuration: LibraryConfiguration) -> Library {
        Library(configuration: configuration, writer: nil, store: nil)
    }

    /// Where the originals are. For a library opened for reading, opened on first use.
    public func store() throws -> OriginalStore {
        try storeBox.update { box in
            if let store = box { return store }
            let store = try Self.makeStore(configuration, reading: writer == nil)
            box = store
            return store
        }
    }

    /// The catalog: read-write for a writer; `readOnly` for readers (no file is created).
    /// `checkIntegrity: false` skips SQLite's quick check (a second connection, a reader in a hurry).
    /// A PostgreSQL catalog is one connection, opened for reading and writing alike (its
    /// tables are created when missing).
    public func openCatalog(readOnly: Bool = false, checkIntegrity: Bool = true, immutable: Bool = false) throws -> Catalog {
        switch configuration.catalog {
        case .libraryFolder:
            return try SQLiteCatalog(path: layout.catalog, readOnly: readOnly, checkIntegrity: checkIntegrity, immutable: immutable)
        case .postgres(let uri):
            return try PostgresCatalog(uri: uri)
        }
    }

    /// Whether a catalog exists yet (a dry run of a library never fetched into has none).
    public var hasCatalog: Bool {
        configuration.catalog.isShared || access(layout.catalog, F_OK) == 0
    }

    /// Whether writers share the catalog (PostgreSQL): then a writer publishes each batch
    /// before it commits it, so a crash never leaves a catalogued original whose only copy is
    /// in a staging folder, and there is no change log (the database is durable itself;
    /// reindex rebuilds from the store).
    public var isShared: Bool { configuration.catalog.isShared }

    /// The work queue fetch's workers share a list through: the catalog's database for a
    /// shared catalog; nil for the embedded default (one writer reads its lists itself).
    public func openWorkQueue() throws -> WorkQueue? {
        guard case .postgres(let uri) = configuration.catalog else { return nil }
        return try PostgresWorkQueue(uri: uri)
    }

    /// The change log a writer appends to before it commits; nil when the catalog is durable
    /// and shared by itself (PostgreSQL).
    public func openChangeLog() throws -> ChangeLog? {
        if configuration.catalog.isShared { return nil }
        return try Journal(path: layout.journal)
    }

    /// Finishes or undoes what a crash interrupted (see `LibraryRecovery`); writers only. With a
    /// shared catalog, dead writers' reservations count as abandoned after
    /// `configuration.staleReservationAge` seconds.
    @discardableResult
    public func recover(catalog: Catalog) throws -> LibraryRecovery.Report {
        if let shared = catalog as? PostgresCatalog {
            return try LibraryRecovery.run(store: store(), sharedCatalog: shared, staleAfter: configuration.staleReservationAge)
        }
        return try LibraryRecovery.run(store: store(), catalog: catalog)
    }

    /// A shared lock held while it lives: readers that asked to keep writers out (verify --wait).
    public func holdWritersOff(wait: Bool) throws -> WriterCoordination {
        try LibraryLock(layout: layout, mode: .shared, wait: wait)
    }

    /// Who holds the writer's lock now, if anyone ("pid 1234 (shoebox fetch)").
    public var currentWriter: String? { LibraryLock.writer(of: layout) }

    /// The store a shared catalog's library keeps its originals in (bound by its first writer),
    /// or nil when none is bound yet: a command given no --store uses it.
    public static func boundStore(of catalog: CatalogLocation) throws -> StoreLocation? {
        guard case .postgres(let uri) = catalog else { return nil }
        let shared = try PostgresCatalog(uri: uri)
        defer { shared.close() }
        return try shared.boundStore().map(StoreLocation.init(bound:))
    }

    /// A shared catalog remembers its library's store (as LIBRARY/store does for the embedded
    /// default): its first writer binds it; any command naming another store is refused.
    private static func bindSharedStore(_ configuration: LibraryConfiguration, writing: Bool) throws {
        guard case .postgres(let uri) = configuration.catalog else { return }
        let shared = try PostgresCatalog(uri: uri)
        defer { shared.close() }
        let given = configuration.store.bindingName
        let bound = writing ? try shared.bindStore(given) : try shared.boundStore() ?? given
        guard bound == given else {
            throw LibraryError.storeMismatch(library: configuration.catalog.description, recorded: StoreLocation(bound: bound).shown,
                                             given: configuration.store.shown)
        }
    }

    private static func makeStore(_ configuration: LibraryConfiguration, reading: Bool = false, staging: String? = nil) throws -> OriginalStore {
        switch configuration.store {
        case .libraryFolder:
            return try LocalOriginalStore(layout: configuration.layout, creating: !reading, staging: staging)
        case .objectStore(let url):
            guard url.hasPrefix("s3://") else { throw LibraryError.unsupportedStore(url: url) }
            let environment = configuration.environment.isEmpty ? ProcessInfo.processInfo.environment : configuration.environment
            let store = try S3OriginalStore(location: S3Location(parsing: url), configuration: S3Configuration.fromEnvironment(environment),
                                            layout: configuration.layout, creating: !reading,
                                            staging: staging, sharedPrefix: configuration.catalog.isShared)
            store.streamingThreshold = configuration.streamingThreshold
            return store
        }
    }
}
