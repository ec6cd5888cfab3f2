import ShoeboxKit

/// The `--library DIR` / `-L DIR` option shared by the commands, with its
/// `SHOEBOX_LIBRARY` fallback.
enum LibraryOption {
    static let spec = OptionSpec("library", short: "L", .value("DIR"), help: "The library folder (else $SHOEBOX_LIBRARY); a leading ~/ is $HOME.")

    static let storeSpec = OptionSpec(
        "store", .value("URL"), help: "Keep the originals in an S3-compatible bucket, s3://BUCKET[/PREFIX] (else $SHOEBOX_STORE; default LIBRARY/originals/).")

    /// The library the command works on: the folder, and where its originals are (`--store`,
    /// else SHOEBOX_STORE, else the folder itself).
    static func configuration(_ arguments: ParsedArguments, console: Console) throws -> LibraryConfiguration {
        let layout = try layout(arguments, console: console)
        // Without --store (or SHOEBOX_STORE), the store the library remembers (LIBRARY/store).
        var store = (try? StoreBinding.recorded(in: layout)) ?? nil ?? StoreLocation.libraryFolder
        if let url = arguments.value("store") ?? console.environment["SHOEBOX_STORE"], !url.isEmpty {
            guard url.hasPrefix("s3://") else {
                throw UsageError.invalidValue(option: "store", value: url, expected: "s3://BUCKET[/PREFIX]")
            }
            store = .objectStore(url: url)
        }
        return LibraryConfiguration(layout: layout, store: store, environment: console.environment)
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
