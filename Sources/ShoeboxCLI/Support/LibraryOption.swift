import ShoeboxKit

/// The `--library DIR` / `-L DIR` option shared by the commands, with its
/// `SHOEBOX_LIBRARY` fallback.
enum LibraryOption {
    static let spec = OptionSpec("library", short: "L", .value("DIR"), help: "The library folder (else $SHOEBOX_LIBRARY).")

    static func layout(_ arguments: ParsedArguments, console: Console) throws -> LibraryLayout {
        if let path = arguments.value("library"), !path.isEmpty { return LibraryLayout(root: path) }
        if let path = console.environment["SHOEBOX_LIBRARY"], !path.isEmpty { return LibraryLayout(root: path) }
        throw UsageError.missingArgument("library: pass --library DIR (or -L DIR), or set SHOEBOX_LIBRARY")
    }
}
