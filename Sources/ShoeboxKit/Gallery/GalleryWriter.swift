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

    /// The gallery's name, in every page's title and heading.
    public var title = "Shoebox gallery"

    public struct Result: Sendable, Equatable {
        /// The front page written (a path, or the s3:// location in a bucket).
        public var page: String
        public var images: Int
        /// Originals left out because they have no thumbnail yet (thumbs can make them).
        public var withoutThumbnails: Int
        /// Raw originals left out for want of a thumbnail: thumbs makes them through LibRaw, except
        /// from raws LibRaw cannot read (named by thumbs' errors).
        public var rawWithoutThumbnails: Int = 0
        /// Originals shown (by their thumbnails) whose own file is missing.
        public var missingOriginals: Int = 0
        /// Pages of photos (months, sparse years, parts) and photo pages made.
        public var pages: Int = 0
        public var photoPages: Int = 0
        /// Files written or replaced this run (unchanged ones are left alone), and old ones removed.
        public var filesWritten: Int = 0
        public var filesRemoved: Int = 0
        /// Photos on the map (--gps).
        public var mapPhotos: Int = 0
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
        let root = libraryRoot
        let linksOriginals = linksOriginals
        let shown = try shownPhotos(showGPS: showGPS) {
            // Originals in a bucket are there by the catalog's word (verify checks them).
            (!linksOriginals && LibraryLayout.isPlainOriginalPath($0)) || access(root + "/" + $0, F_OK) == 0
        }
        let site = GallerySite(plan: shown.plan, libraryPrefix: RelativeLink.prefix(from: output, to: libraryRoot),
                               showGPS: showGPS, title: title, linksOriginals: linksOriginals)
        do {
            let files = try GalleryFolderOutput(root: output)
            let counts = try site.generate(files.write)
            var result = shown.result(counts: counts, page: output + "/index.html")
            result.filesWritten = files.written
            result.filesRemoved = files.removeLeftovers()
            return result
        } catch let error as POSIXFileError {
            throw GalleryError.writing(error)
        }
    }

    /// The photos the gallery shows (those with a usable thumbnail), laid out on pages, and
    /// what the summary says of the others.
    private struct Shown {
        var plan: GalleryPlan
        var images: Int
        var withoutThumbnails: Int
        var raw: Int
        var missing: Int

        func result(counts: GallerySite.Counts, page: String) -> Result {
            Result(page: page, images: images, withoutThumbnails: withoutThumbnails, rawWithoutThumbnails: raw,
                   missingOriginals: missing, pages: counts.pages, photoPages: counts.photoPages, mapPhotos: counts.mapPhotos)
        }
    }

    /// Reads the catalog and lays the photos out; the catalog's rows are let go before any
    /// page is made, so only the plan's photos stay in memory.
    private func shownPhotos(showGPS: Bool, exists: (String) -> Bool) throws -> Shown {
        let items: [GalleryItem]
        var withoutThumbnails = 0, raw = 0
        do {
            let thumbnails = GalleryBuilder.usable(try catalog.allThumbnails(), allowMetadata: showGPS, exists: exists)
            var sources: [String: [String]] = [:]
            for source in try catalog.allSources() {
                if let sha256 = source.sha256 { sources[sha256, default: []].append(source.url) }
            }
            let rawTypes = Set(ImageFormat.allCases.filter(\.isRaw).map(\.mimeType))
            let catalog = catalog
            // The originals are streamed: only the photos shown are kept.
            items = try GalleryBuilder.items(streaming: { each in
                try catalog.originals(matching: OriginalQuery(), limit: nil) { each($0); return true }
            }, thumbnails: thumbnails, sources: sources, exists: exists) { original in
                if rawTypes.contains(original.contentType.lowercased()) { raw += 1 } else { withoutThumbnails += 1 }
            }
        }
        return Shown(plan: GalleryPlan(items: items), images: items.count, withoutThumbnails: withoutThumbnails, raw: raw,
                     missing: items.reduce(0) { $0 + ($1.originalExists ? 0 : 1) })
    }

    /// The gallery of a library whose originals and thumbnails are in `bucket`. Into the bucket,
    /// at PREFIX/gallery/ with links relative to it (thumbnails and originals are its neighbours
    /// there, so it works wherever the bucket is served from); or into the local `folder`, with
    /// the thumbnails it shows copied to folder/thumbnails/ and the originals unlinked.
    private func write(from bucket: S3OriginalStore, to folder: String?, showGPS: Bool) throws -> Result {
        let listed = try bucket.sizes(under: ThumbnailLayout.folder)
        let shown = try shownPhotos(showGPS: showGPS) {
            // Originals are there by the catalog's word (verify checks them); thumbnails by the listing.
            $0.hasPrefix(ThumbnailLayout.folder + "/") ? listed[$0] != nil : LibraryLayout.isPlainOriginalPath($0)
        }
        if let folder {
            try refuseLibraryFolders(folder)
            let site = GallerySite(plan: shown.plan, libraryPrefix: "", showGPS: showGPS, title: title, linksOriginals: false)
            do {
                let files = try GalleryFolderOutput(root: folder)
                for thumbnail in shown.plan.pages.lazy.flatMap(\.sections).flatMap(\.items).flatMap(\.thumbnails) {
                    let file = folder + "/" + thumbnail.path
                    if let size = try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64, size == thumbnail.bytes { continue }
                    try copy(thumbnail.path, from: bucket, to: file)
                }
                let counts = try site.generate(files.write)
                var result = shown.result(counts: counts, page: folder + "/index.html")
                result.filesWritten = files.written
                result.filesRemoved = files.removeLeftovers()
                return result
            } catch let error as POSIXFileError {
                throw GalleryError.writing(error)
            }
        }
        let site = GallerySite(plan: shown.plan, libraryPrefix: "../", showGPS: showGPS, title: title, linksOriginals: true)
        let page = bucket.location(of: Self.bucketPage)
        do {
            let files = try GalleryBucketOutput(store: bucket)
            let counts = try site.generate(files.write)
            var result = shown.result(counts: counts, page: page)
            result.filesWritten = files.written
            result.filesRemoved = try files.finish()
            return result
        } catch let error as POSIXFileError {
            throw GalleryError.writing(error)
        } catch let error as GalleryError {
            throw error
        } catch {
            throw GalleryError.cannotWrite(path: page, reason: "\(error)")
        }
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
