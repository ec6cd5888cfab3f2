import Foundation

/// Writes `index.html` for a library's gallery (default folder LIBRARY/gallery).
public struct GalleryWriter {
    public let libraryRoot: String
    public let catalog: Catalog
    /// False when the originals are in an object store: the page shows their thumbnails,
    /// unlinked (a bucket is no folder a relative link reaches), and none counts as missing.
    public var linksOriginals = true
    /// The bucket the originals and thumbnails are in, if they are in one: the page is then
    /// written into it (PREFIX/gallery/index.html) unless a local folder is given, in which
    /// case the thumbnails it shows are copied beside it.
    public var bucket: S3OriginalStore?

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
        // Decided from the configuration: the page never reads an original.
        linksOriginals = library.configuration.store == .libraryFolder
        if !linksOriginals { bucket = try library.store() as? S3OriginalStore }
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
        if let bucket { return try write(from: bucket, to: folder, showGPS: showGPS) }
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

    /// The page of a library whose originals and thumbnails are in `bucket`. Into the bucket,
    /// at PREFIX/gallery/index.html with links relative to it (thumbnails and originals are
    /// its neighbours there, so it works wherever the bucket is served from); or into the local
    /// `folder`, with the thumbnails it shows copied to folder/thumbnails/ and the originals unlinked.
    private func write(from bucket: S3OriginalStore, to folder: String?, showGPS: Bool) throws -> Result {
        let listed = try bucket.sizes(under: ThumbnailLayout.folder)
        let originals = try catalog.allOriginals()
        let sections = GalleryBuilder.sections(originals: originals, thumbnails: try catalog.allThumbnails(), allowMetadata: showGPS) {
            // Originals are there by the catalog's word (verify checks them); thumbnails by the listing.
            $0.hasPrefix(ThumbnailLayout.folder + "/") ? listed[$0] != nil : LibraryLayout.isPlainOriginalPath($0)
        }
        let shown = sections.flatMap(\.items)
        let path: String
        var page: GalleryPage
        if let folder {
            try refuseLibraryFolders(folder)
            page = GalleryPage(sections: sections, libraryPrefix: "", showGPS: showGPS)
            page.linksOriginals = false
            path = folder + "/index.html"
            do {
                try AtomicFileWriter.createFolders(folder)
                for thumbnail in shown.flatMap(\.thumbnails) {
                    try copy(thumbnail.path, from: bucket, to: folder + "/" + thumbnail.path)
                }
                try AtomicFileWriter.write(Array(page.html().utf8), to: path, temporaryPrefix: ".index.html.tmp-")
            } catch let error as POSIXFileError {
                throw GalleryError.writing(error)
            }
        } else {
            page = GalleryPage(sections: sections, libraryPrefix: "../", showGPS: showGPS)
            let key = Self.bucketPage
            path = bucket.location(of: key)
            let scratch = NSTemporaryDirectory() + "/shoebox-gallery-\(UUID().uuidString).html"
            defer { unlink(scratch) }
            do {
                try AtomicFileWriter.write(Array(page.html().utf8), to: scratch, temporaryPrefix: ".shoebox-gallery-tmp-")
                try bucket.putDerived(file: scratch, at: key, contentType: "text/html; charset=utf-8")
            } catch let error as POSIXFileError {
                throw GalleryError.writing(error)
            } catch {
                throw GalleryError.cannotWrite(path: path, reason: "\(error)")
            }
        }
        return Result(page: path, images: page.imageCount, withoutThumbnails: originals.count - page.imageCount)
    }

    /// Where the page of a bucket's gallery goes, relative to the library (the store's prefix).
    public static let bucketPage = "gallery/index.html"

    /// Downloads the object at `path` to `file` (replaced whole: written beside it, then renamed).
    private func copy(_ path: String, from bucket: S3OriginalStore, to file: String) throws {
        try AtomicFileWriter.createFolders(FolderPath.containing(file))
        var bytes: [UInt8] = []
        do {
            try bucket.stream(path: path) { bytes.append(contentsOf: $0) }
        } catch {
            throw GalleryError.cannotWrite(path: file, reason: "cannot read \(bucket.location(of: path)): \(error)")
        }
        try AtomicFileWriter.write(bytes, to: file, temporaryPrefix: ".shoebox-thumbnail-tmp-")
    }
}
