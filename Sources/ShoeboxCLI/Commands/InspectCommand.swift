import Foundation
import ShoeboxKit

/// `shoebox inspect [PATH ...] [--library DIR] [--json] [--all]`.
public enum InspectCommand: Command {
    public static let spec = CommandSpec(
        name: "inspect",
        abstract: "Show EXIF and GPS metadata of photos (JPEG, TIFF/raw, PNG, WebP, HEIC/AVIF).",
        arguments: "[PATH ...]",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("json", help: "Print a JSON array, one object per file, compatible with `exiftool -json -n`."),
            OptionSpec("all", short: "a", help: "Also print every EXIF tag, grouped by IFD (IFD0, ExifIFD, GPS, Interop, IFD1)."),
        ],
        discussion: """
        PATH is a file or a directory (recursed, in path order). With --library and no PATH, every original in
        the catalog is inspected, in library order; with --library, a relative PATH that does not exist here is
        taken inside the library (e.g. originals/2024/05/01). Pixels are never decoded: only the headers are read.
        Exit status: 0 every file read, 1 some file or folder could not be read, 2 usage, 4 library unusable, 130 interrupted.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let trap = InterruptExit.trap("inspect", console: console)
        defer { withExtendedLifetime(trap) {} }
        let json = arguments.flag("json"), all = arguments.flag("all")
        let paths: [String]
        /// Where library paths are read from when the originals are not local files.
        var store: OriginalStore?
        var unlisted: [UnlistedFolder] = []
        let library = try arguments.value("library").map {
            try HomeFolderPath.expand($0, option: "library", environment: console.environment)
        }
        if arguments.positionals.isEmpty {
            guard arguments.value("library") != nil || console.environment["SHOEBOX_LIBRARY"] != nil else {
                throw UsageError.missingArgument("PATH: give files or directories to inspect, or --library DIR")
            }
            let configuration = try LibraryOption.configuration(arguments, console: console)
            do {
                let opened = try Library.openForReading(configuration)
                let catalog = try opened.openCatalog(readOnly: true, checkIntegrity: false)
                defer { catalog.close() }
                let originals = try opened.store()
                if originals is LocalOriginalStore {
                    paths = try catalog.allOriginals().map { originals.location(of: $0.path) }
                } else {
                    paths = try catalog.allOriginals().map(\.path)
                    store = originals
                }
            } catch {
                return LibraryFailure.status(for: error, command: "inspect", console: console)
            }
        } else {
            let expansion = PhotoFileFinder.expand(arguments.positionals.map { resolve($0, library: library) })
            paths = expansion.paths
            unlisted = expansion.unreadableFolders
        }
        for folder in unlisted {
            console.error("inspect: cannot read folder \(TerminalText.oneLine(folder.path)): \(folder.reason); photos in it were not inspected (\(folder.advice))")
        }
        if paths.isEmpty && unlisted.isEmpty {
            console.error("inspect: no photos found in \(arguments.positionals.isEmpty ? "the catalog" : arguments.positionals.joined(separator: ", "))")
        }
        var failed = 0, count = 0
        // Progress (stderr, terminals only) when the data goes elsewhere, so the two never interleave.
        let showProgress = isatty(STDOUT_FILENO) == 0 && paths.count > 1
        if json { console.out("[") }
        // Formatting runs on the reader threads; printing stays in input order here.
        MetadataBatch.read(paths, store: store, includeAllTags: all, transform: { item in
            render(item, json: json, all: all)
        }) { rendered in
            count += 1
            if rendered.failed { failed += 1 }
            if showProgress, count % 64 == 0 || count == paths.count {
                console.progress("inspect: \(count) of \(Counted.text(paths.count, "file"))")
            }
            if json {
                console.out(rendered.text + (count < paths.count ? "," : ""))
            } else if rendered.failed {
                console.error(rendered.text)
            } else {
                console.out((count > 1 ? "\n" : "") + rendered.text)
            }
        }
        if json { console.out("]") }
        if showProgress { console.clearProgress() }
        if failed > 0 {
            console.error("inspect: \(failed) of \(Counted.text(paths.count, "file")) could not be read")
        }
        return failed > 0 || !unlisted.isEmpty ? ExitStatus.someFailed : ExitStatus.success
    }

    /// One file's output: a JSON object, a block for people, or (not JSON) the error message for stderr.
    private static func render(_ item: MetadataBatch.Item, json: Bool, all: Bool) -> (text: String, failed: Bool) {
        let failed: Bool
        if case .failure = item.result { failed = true } else { failed = false }
        if json { return (InspectPrinter.json(item, includeAllTags: all), failed) }
        switch item.result {
        case .success(let metadata):
            return (InspectPrinter.block(metadata, path: item.path, fileSize: item.fileSize, includeAllTags: all), false)
        case .failure(let error):
            return (error.description, true)
        }
    }

    /// A relative PATH missing from the current folder but present in the library is taken from the library.
    private static func resolve(_ path: String, library: String?) -> String {
        guard let library, !path.hasPrefix("/"), !FileManager.default.fileExists(atPath: path) else { return path }
        let inLibrary = LibraryLayout(root: library).absolute(path)
        return FileManager.default.fileExists(atPath: inLibrary) ? inLibrary : path
    }
}
