import Foundation

/// Writes `index.html` for a library's gallery (default folder LIBRARY/gallery).
public struct GalleryWriter {
    public let libraryRoot: String
    public let catalog: Catalog
    /// False when the originals are in an object store: the page shows their thumbnails,
    /// unlinked (a bucket is no folder a relative link reaches), and none counts as missing.
    public var linksOriginals = true

    public struct Result: Sendable, Equatable {
        /// Absolute path of the page written.
        public var page: String
        public var images: Int
        /// Originals left out because they have no thumbnail yet.
        public var withoutThumbnails: Int
        /// Originals shown (by their thumbnails) whose own file is missing.
        public var missingOriginals: Int = 0
    }

    /// The gallery of `library`, from `catalog`.
    public init(library: Library, catalog: Catalog) throws {
        self.init(libraryRoot: library.layout.root, catalog: catalog)
        // Decided from the configuration: the page never reads an original, so it needs no credentials.
        linksOriginals = library.configuration.store == .libraryFolder
    }

    public init(libraryRoot: String, catalog: Catalog) {
        self.libraryRoot = libraryRoot
        self.catalog = catalog
    }

    public static func defaultFolder(libraryRoot: String) -> String { libraryRoot + "/gallery" }

    /// A page written into originals/ would be an unknown file there (and thumbnails/ is
    /// pruned, .tmp/ emptied): compared after resolving symbolic links.
    private func refuseLibraryFolders(_ output: String) throws {
        let target = Self.resolved(output)
        for folder in [LibraryLayout.originalsFolder, ThumbnailLayout.folder, ".tmp"] {
            let reserved = Self.resolved(libraryRoot + "/" + folder)
            if target == reserved || target.hasPrefix(reserved + "/") {
                throw GalleryError.insideLibraryFolder(path: output, folder: folder)
            }
        }
    }

    /// `path` with symbolic links resolved in the part of it that exists.
    private static func resolved(_ path: String) -> String {
        // Made absolute first: URL(fileURLWithPath:) reads a leading "~user" as a home folder,
        // and for Shoebox a "~" left in a path is an ordinary character.
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var existing = URL(fileURLWithPath: absolute).standardizedFileURL.path
        var rest: [String] = []
        while access(existing, F_OK) != 0, existing != "/" {
            rest.insert((existing as NSString).lastPathComponent, at: 0)
            existing = FolderPath.containing(existing)
        }
        guard let real = realpath(existing, nil) else { return path }
        defer { free(real) }
        return ([String(cString: real)] + rest).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
    }

    public func write(to folder: String? = nil, showGPS: Bool) throws -> Result {
        let output = folder ?? Self.defaultFolder(libraryRoot: libraryRoot)
        try refuseLibraryFolders(output)
        let originals = try catalog.allOriginals()
        let root = libraryRoot
        let linksOriginals = linksOriginals
        let sections = GalleryBuilder.sections(originals: originals, thumbnails: try catalog.allThumbnails(), allowMetadata: showGPS) {
            // Originals in a bucket are there by the catalog's word (verify checks them).
            (!linksOriginals && LibraryLayout.isPlainOriginalPath($0)) || FileManager.default.fileExists(atPath: root + "/" + $0)
        }
        do {
            try AtomicFileWriter.createFolders(output)
        } catch let error as POSIXFileError {
            throw GalleryError.writing(error)
        }
        var page = GalleryPage(sections: sections, libraryPrefix: RelativeLink.prefix(from: output, to: libraryRoot),
                               showGPS: showGPS)
        page.linksOriginals = linksOriginals
        let path = output + "/index.html"
        do {
            try AtomicFileWriter.write(Array(page.html().utf8), to: path, temporaryPrefix: ".index.html.tmp-")
        } catch let error as POSIXFileError {
            throw GalleryError.writing(error)
        }
        let missing = sections.flatMap(\.items).filter { !$0.originalExists }.count
        return Result(page: path, images: page.imageCount, withoutThumbnails: originals.count - page.imageCount,
                      missingOriginals: missing)
    }
}
