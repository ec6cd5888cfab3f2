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
