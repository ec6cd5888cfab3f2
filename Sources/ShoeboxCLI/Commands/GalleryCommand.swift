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
            OptionSpec("title", .value("TEXT"), help: "The gallery's name, in every page's title and heading.",
                       default: "Shoebox gallery"),
            OptionSpec("gps", help: "Show where photos were taken: coordinates and a map link per photo, an overview map."),
            OptionSpec("json", help: "Print the result as one JSON object on stdout."),
        ],
        discussion: """
        index.html lists years and months with counts; each month (a sparse year, up to 60 photos, on one page) has its
        page, cut into parts of at most 400 photos, with its days listed; photos sit in justified rows, each at its own
        aspect ratio, never larger than its thumbnail, lazy-loaded through srcset. Every photo has its own page (the
        largest thumbnail, camera, lens, date and where the date came from, size, the original and the URLs it came from
        without their query strings). Pages work without JavaScript; with it, a click opens the photo in place and the
        arrow keys and Esc move through the photos. No GPS appears unless --gps: then each photo's page gives its position
        and a map link, and index.html a world map of the places (map.svg, nothing loaded from the network).
        Nothing is loaded from elsewhere and links are relative, so the folder can be moved, copied or served anywhere.
        A rerun rewrites only files whose content changed and removes pages of photos no longer shown.
        Run 'shoebox thumbs' first. With an s3:// store the gallery is written into the bucket, PREFIX/gallery/, beside
        the thumbnails and originals it links to, so it works wherever the bucket is served from.
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
        if let title = arguments.value("title"), title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw UsageError.invalidValue(option: "title", value: title, expected: "a name for the gallery")
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
            var writer = try GalleryWriter(library: library, catalog: catalog)
            if let title = arguments.value("title") { writer.title = title }
            result = try writer.write(to: out, showGPS: arguments.flag("gps"))
        } catch {
            return LibraryFailure.status(for: error, command: "gallery", console: console)
        }
        if arguments.flag("json") {
            console.out(JSONLine.encode(["page": result.page, "images": result.images,
                                         "without_thumbnails": result.withoutThumbnails,
                                         "raw_without_thumbnails": result.rawWithoutThumbnails,
                                         "missing_originals": result.missingOriginals,
                                         "pages": result.pages, "photo_pages": result.photoPages,
                                         "files_written": result.filesWritten, "files_removed": result.filesRemoved,
                                         "map_photos": result.mapPhotos]))
        } else {
            console.out(result.page)
        }
        var note = "gallery: " + Counted.text(result.images, "photo") + " on " + Counted.text(result.pages, "page")
            + " (\(result.filesWritten) file\(result.filesWritten == 1 ? "" : "s") written"
            + (result.filesRemoved > 0 ? ", \(result.filesRemoved) removed" : "") + ")"
        if result.withoutThumbnails > 0 {
            note += "; \(result.withoutThumbnails) original\(result.withoutThumbnails == 1 ? " has" : "s have") no thumbnail yet (run 'shoebox thumbs')"
        }
        if result.rawWithoutThumbnails > 0 {
            note += "; \(result.rawWithoutThumbnails) raw original\(result.rawWithoutThumbnails == 1 ? " has" : "s have") no thumbnail "
                + "(run 'shoebox thumbs'; it names any raw LibRaw cannot read)"
        }
        if result.missingOriginals > 0 {
            note += "; \(result.missingOriginals) original\(result.missingOriginals == 1 ? " is" : "s are") missing from "
                + "originals/ (shown unlinked; run 'shoebox verify')"
        }
        console.note(note + "\n")
        return ExitStatus.success
    }
}
