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
            OptionSpec("json", help: "Print a JSON array, one object per file, compatible with `exiftool -json -n`."),
            OptionSpec("all", short: "a", help: "Also print every EXIF tag, grouped by IFD (IFD0, ExifIFD, GPS, Interop, IFD1)."),
        ],
        discussion: """
        PATH is a file or a directory (recursed, in path order). With --library and no PATH, every original in
        the catalog is inspected, in library order. Pixels are never decoded: only the headers are read.
        Exit status: 0 every file read, 1 some file could not be read, 2 usage, 4 library unusable.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let json = arguments.flag("json"), all = arguments.flag("all")
        let paths: [String]
        if arguments.positionals.isEmpty {
            guard arguments.value("library") != nil || console.environment["SHOEBOX_LIBRARY"] != nil else {
                throw UsageError.missingArgument("PATH: give files or directories to inspect, or --library DIR")
            }
            let layout = try LibraryOption.layout(arguments, console: console)
            do {
                let catalog = try SQLiteCatalog(path: layout.catalog, readOnly: true)
                defer { catalog.close() }
                paths = try catalog.allOriginals().map { layout.absolute($0.path) }
            } catch {
                console.error("inspect: \(error)")
                return ExitStatus.libraryUnusable
            }
        } else {
            paths = PhotoFileFinder.expand(arguments.positionals)
        }
        var failed = 0, count = 0
        if json { console.out("[") }
        MetadataBatch.read(paths, includeAllTags: all) { item in
            count += 1
            if json {
                console.out(InspectPrinter.json(item, includeAllTags: all) + (count < paths.count ? "," : ""))
                if case .failure = item.result { failed += 1 }
                return
            }
            switch item.result {
            case .success(let metadata):
                console.out((count > 1 ? "\n" : "") + InspectPrinter.block(metadata, path: item.path, fileSize: item.fileSize, includeAllTags: all))
            case .failure(let error):
                failed += 1
                console.error(error.description)
            }
        }
        if json { console.out("]") }
        if failed > 0 {
            console.error("inspect: \(failed) of \(paths.count) files could not be read")
            return ExitStatus.someFailed
        }
        return ExitStatus.success
    }
}
