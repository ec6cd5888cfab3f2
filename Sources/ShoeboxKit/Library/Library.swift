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
    public static func openForWriting(
        _ configuration: LibraryConfiguration, creating: Bool, waiting: Waiting = Waiting()
    ) throws -> Library {
        let layout = configuration.layout
        if creating {
            try LibraryAccess.requireReadable(layout)
        } else {
            try layout.requireExisting()
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
        try configuration.layout.requireExisting()
        try StoreBinding.check(configuration)
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
    public func openCatalog(readOnly: Bool = false, checkIntegrity: Bool = true, immutable: Bool = false) throws -> Catalog {
        try SQLiteCatalog(path: layout.catalog, readOnly: readOnly, checkIntegrity: checkIntegrity, immutable: immutable)
    }

    /// Whether a catalog exists yet (a dry run of a library never fetched into has none).
    public var hasCatalog: Bool { access(layout.catalog, F_OK) == 0 }

    /// The change log a writer appends to before it commits.
    public func openChangeLog() throws -> ChangeLog {
        try Journal(path: layout.journal)
    }

    /// Finishes or undoes what a crash interrupted (see `LibraryRecovery`); writers only.
    @discardableResult
    public func recover(catalog: Catalog) throws -> LibraryRecovery.Report {
        try LibraryRecovery.run(store: store(), catalog: catalog)
    }

    /// A shared lock held while it lives: readers that asked to keep writers out (verify --wait).
    public func holdWritersOff(wait: Bool) throws -> WriterCoordination {
        try LibraryLock(layout: layout, mode: .shared, wait: wait)
    }

    /// Who holds the writer's lock now, if anyone ("pid 1234 (shoebox fetch)").
    public var currentWriter: String? { LibraryLock.writer(of: layout) }

    private static func makeStore(_ configuration: LibraryConfiguration, reading: Bool = false) throws -> OriginalStore {
        switch configuration.store {
        case .libraryFolder:
            return try LocalOriginalStore(layout: configuration.layout, creating: !reading)
        case .objectStore(let url):
            guard url.hasPrefix("s3://") else { throw LibraryError.unsupportedStore(url: url) }
            let environment = configuration.environment.isEmpty ? ProcessInfo.processInfo.environment : configuration.environment
            return try S3OriginalStore(location: S3Location(parsing: url), configuration: S3Configuration.fromEnvironment(environment),
                                       layout: configuration.layout, creating: !reading)
        }
    }
}
