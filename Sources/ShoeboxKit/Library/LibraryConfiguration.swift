/// What the user said about where a library is and what backs it: the input of the
/// composition root (`Library`).
public struct LibraryConfiguration: Sendable, CustomStringConvertible, CustomReflectable {
    /// The library folder: catalog, journal, lock, thumbnails, gallery (and the originals
    /// with the default store).
    public var layout: LibraryLayout
    /// Where the originals are.
    public var store: StoreLocation
    /// Where the catalog is.
    public var catalog: CatalogLocation
    /// The environment credentials and endpoints come from (AWS_* for S3).
    public var environment: [String: String]

    /// Never the environment: it holds the secret key.
    public var description: String { "library \(layout.root), store \(store), catalog \(catalog)" }
    public var customMirror: Mirror { Mirror(self, children: ["layout": layout.root, "store": store, "catalog": catalog.description]) }

    public init(layout: LibraryLayout, store: StoreLocation = .libraryFolder, catalog: CatalogLocation = .libraryFolder,
                environment: [String: String] = [:]) {
        self.layout = layout
        self.store = store
        self.catalog = catalog
        self.environment = environment
    }
}

extension LibraryConfiguration {
    /// Seconds a writer keeps trying a shared catalog that went away (`ConnectionRetry.bound`):
    /// SHOEBOX_CATALOG_RETRY_SECONDS, else 60.
    public var catalogRetryBound: Double {
        seconds("SHOEBOX_CATALOG_RETRY_SECONDS") ?? ConnectionRetry.defaultBound
    }

    /// Seconds after which a dead writer's path reservations are taken for abandoned by the next
    /// writer's recovery: SHOEBOX_STALE_RESERVATION_SECONDS, else 600; never below twice
    /// `catalogRetryBound` (`LibraryRecovery.staleReservationAge(requested:retryBound:)`).
    public var staleReservationAge: Double {
        LibraryRecovery.staleReservationAge(requested: seconds("SHOEBOX_STALE_RESERVATION_SECONDS"), retryBound: catalogRetryBound)
    }

    /// Bodies larger than this stream from the network into an object store's multipart upload
    /// (`S3OriginalStore.streamingThreshold`); smaller ones are staged whole in the library
    /// folder first. SHOEBOX_STREAM_ABOVE (a size as --max-size takes it, at least 5M), else 8 MiB.
    public var streamingThreshold: Int64 {
        let minimum = Int64(S3MultipartUpload.minimumPartSize)
        guard let text = environment["SHOEBOX_STREAM_ABOVE"], let size = ByteSize.parse(text) else { return 8 << 20 }
        return max(minimum, size)
    }

    /// A variable's value as seconds: a finite number, 0 or more; nil when unset or not one.
    private func seconds(_ name: String) -> Double? {
        guard let value = environment[name].flatMap(Double.init), value.isFinite, value >= 0 else { return nil }
        return value
    }
}
