import ShoeboxKit

/// The `--library DIR` / `-L DIR` option shared by the commands, with its
/// `SHOEBOX_LIBRARY` fallback.
enum LibraryOption {
    static let spec = OptionSpec("library", short: "L", .value("DIR"), help: "The library folder (else $SHOEBOX_LIBRARY); a leading ~/ is $HOME.")

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
