import Foundation
import ShoeboxKit

/// The `--library DIR` / `-L DIR` option shared by the commands, with its
/// `SHOEBOX_LIBRARY` fallback.
enum LibraryOption {
    static let spec = OptionSpec("library", short: "L", .value("DIR"), help: "The library folder (else $SHOEBOX_LIBRARY); a leading ~/ is $HOME.")

    static let storeSpec = OptionSpec(
        "store", .value("URL"), help: "Keep the originals in an S3-compatible bucket, s3://BUCKET[/PREFIX] (else $SHOEBOX_STORE; default LIBRARY/originals/).")

    static let catalogSpec = OptionSpec(
        "catalog", .value("URI"),
        help: "Keep the catalog in PostgreSQL, shared by several machines: postgres://USER@HOST[:PORT]/DATABASE, PG* variables honoured (else $SHOEBOX_CATALOG; default LIBRARY/catalog.sqlite).")

    /// The library the command works on: the folder, where its originals are (`--store`,
    /// else SHOEBOX_STORE, else the store the library remembers, else the folder itself), and
    /// where its catalog is (`--catalog`, else SHOEBOX_CATALOG, else the folder).
    static func configuration(_ arguments: ParsedArguments, console: Console) throws -> LibraryConfiguration {
        let catalog = try catalogLocation(arguments, console: console)
        var given: StoreLocation?
        if let url = arguments.value("store") ?? console.environment["SHOEBOX_STORE"], !url.isEmpty {
            guard url.hasPrefix("s3://") else {
                throw UsageError.invalidValue(option: "store", value: url, expected: "s3://BUCKET[/PREFIX]")
            }
            given = .objectStore(url: url)
        }
        if catalog.isShared {
            // The store the shared catalog remembers, unless one is named.
            let store = try given ?? Library.boundStore(of: catalog) ?? .libraryFolder
            let layout = try sharedLayout(arguments, console: console, store: store)
            return LibraryConfiguration(layout: layout, store: store, catalog: catalog, environment: console.environment)
        }
        let layout = try layout(arguments, console: console)
        // Without --store (or SHOEBOX_STORE), the store the library remembers (LIBRARY/store).
        let store = given ?? (try? StoreBinding.recorded(in: layout)) ?? nil ?? StoreLocation.libraryFolder
        return LibraryConfiguration(layout: layout, store: store, environment: console.environment)
    }

    /// `--catalog` or SHOEBOX_CATALOG, else the library folder's SQLite catalog.
    static func catalogLocation(_ arguments: ParsedArguments, console: Console) throws -> CatalogLocation {
        guard let uri = arguments.value("catalog") ?? console.environment["SHOEBOX_CATALOG"], !uri.isEmpty else {
            return .libraryFolder
        }
        guard PostgresCatalog.isPostgresURI(uri) else {
            throw UsageError.invalidValue(option: "catalog", value: PostgresURI.redacted(uri),
                                          expected: "postgres://USER@HOST[:PORT]/DATABASE (or postgresql://…)")
        }
        return .postgres(uri: uri)
    }

    /// With a shared catalog and originals in a bucket no library folder is needed: downloads
    /// are staged in a work folder under TMPDIR (one per user) unless --library names one.
    private static func sharedLayout(_ arguments: ParsedArguments, console: Console, store: StoreLocation) throws -> LibraryLayout {
        if let root = try path(arguments, console: console) { return LibraryLayout(root: root) }
        guard case .objectStore = store else {
            throw UsageError.missingArgument(
                "library: with --catalog and no --store the originals go to LIBRARY/originals/: pass --library DIR (or -L DIR), or set SHOEBOX_LIBRARY")
        }
        let temporary = console.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return LibraryLayout(root: temporary + "/shoebox-work-\(getuid())")
    }

    static func layout(_ arguments: ParsedArguments, console: Console) throws -> LibraryLayout {
        guard let root = try path(arguments, console: console) else {
            throw UsageError.missingArgument("library: pass --library DIR (or -L DIR), or set SHOEBOX_LIBRARY")
        }
        return LibraryLayout(root: root)
    }

    /// The library folder given (a leading "~" expanded, see HomeFolderPath), or nil when none is.
    static func path(_ arguments: ParsedArguments, console: Console) throws -> String? {
        if let path = arguments.value("library"), !path.isEmpty {
            return try HomeFolderPath.expand(path, option: "library", environment: console.environment)
        }
        if let path = console.environment["SHOEBOX_LIBRARY"], !path.isEmpty {
            return try HomeFolderPath.expand(path, option: "library", environment: console.environment)
        }
        return nil
    }
}
