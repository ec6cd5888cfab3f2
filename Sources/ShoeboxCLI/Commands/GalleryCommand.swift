import Foundation
import ShoeboxKit

/// `shoebox gallery --library DIR [--out DIR] [--gps]`.
public enum GalleryCommand: Command {
    public static let spec = CommandSpec(
        name: "gallery",
        abstract: "Write a static HTML gallery of the thumbnails.",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("out", short: "o", .value("DIR"),
                       help: "Folder for index.html (with an s3:// store, a local copy: the thumbnails it shows are copied beside it).",
                       default: "LIBRARY/gallery, or PREFIX/gallery/ in the bucket"),
            OptionSpec("gps", help: "Show GPS coordinates in captions."),
            OptionSpec("json", help: "Print the result as one JSON object on stdout."),
        ],
        discussion: """
        The page has no scripts and no external resources: photos grouped by capture day, newest first, lazy-loaded
        with srcset over the thumbnail sizes, each linking to its original (a HEIC, TIFF or raw one: its largest thumbnail,
        the original offered as a download), captioned with camera and date.
        Links are relative, so the library can be moved or copied with its gallery. Run 'shoebox thumbs' first.
        With an s3:// store the page is written into the bucket, PREFIX/gallery/index.html, beside the thumbnails and
        originals it links to, so it works wherever the bucket is served from.
        Exit status: 0 written, 2 usage error, 4 library unusable or page not writable, 130 interrupted.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let trap = InterruptExit.trap("gallery", console: console)
        defer { withExtendedLifetime(trap) {} }
        let configuration = try LibraryOption.configuration(arguments, console: console)
        if let out = arguments.value("out"), out.isEmpty {
            throw UsageError.invalidValue(option: "out", value: out, expected: "a folder (an empty one would be the current folder)")
        }
        // Made absolute here: URL(fileURLWithPath:) would expand a relative "~x" as a user's home.
        let out = try arguments.value("out").map { given -> String in
            let path = try HomeFolderPath.expand(given, option: "out", environment: console.environment)
            return URL(fileURLWithPath: path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
                .standardizedFileURL.path
        }
        let result: GalleryWriter.Result
        do {
            let library = try Library.openForReading(configuration)
            let catalog = try library.openCatalog(readOnly: true, checkIntegrity: false)
            result = try GalleryWriter(library: library, catalog: catalog).write(to: out, showGPS: arguments.flag("gps"))
        } catch {
            return LibraryFailure.status(for: error, command: "gallery", console: console)
        }
        if arguments.flag("json") {
            console.out(JSONLine.encode(["page": result.page, "images": result.images,
                                         "without_thumbnails": result.withoutThumbnails,
                                         "missing_originals": result.missingOriginals]))
        } else {
            console.out(result.page)
        }
        var note = "gallery: " + Counted.text(result.images, "photo")
        if result.withoutThumbnails > 0 {
            note += "; \(result.withoutThumbnails) original\(result.withoutThumbnails == 1 ? " has" : "s have") no thumbnail yet (run 'shoebox thumbs')"
        }
        if result.missingOriginals > 0 {
            note += "; \(result.missingOriginals) original\(result.missingOriginals == 1 ? " is" : "s are") missing from "
                + "originals/ (shown unlinked; run 'shoebox verify')"
        }
        console.note(note + "\n")
        return ExitStatus.success
    }
}
