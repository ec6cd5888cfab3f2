import Foundation

/// Removes thumbnails whose original is no longer in the catalog,
/// left-over temporary files, catalog rows for missing thumbnail files, and
/// the folders this empties.
struct ThumbnailPruner {
    let libraryRoot: String
    /// Where the thumbnails are; a remote store is pruned by its listing.
    var thumbnails: ThumbnailStore? = nil
    /// Leaves temporary files alone (other workers of a shared catalog may be writing them).
    var keepsTemporaryFiles = false

    /// Returns the removed thumbnail paths (relative to the library root). `liveOriginals`
    /// holds paths as bytes: a decomposed twin of a live name is another original.
    /// Removals are journaled in `journal` (when there is one) before they are committed.
    func prune(liveOriginals: Set<[UInt8]>, catalog: Catalog, journal: ChangeLog?) throws -> [String] {
        if let thumbnails, !thumbnails.isLocal {
            return try pruneRemote(thumbnails, catalog: catalog, journal: journal)
        }
        let root = libraryRoot + "/" + ThumbnailLayout.folder
        var removed: [String] = []
        var folders: [String] = []
        let manager = FileManager.default
        if let walker = manager.enumerator(atPath: root) {
            while let relative = walker.nextObject() as? String {
                let full = root + "/" + relative
                var isFolder: ObjCBool = false
                guard manager.fileExists(atPath: full, isDirectory: &isFolder) else { continue }
                if isFolder.boolValue {
                    folders.append(full)
                    continue
                }
                guard relative != CacheDirectoryTag.fileName else { continue }
                let path = ThumbnailLayout.folder + "/" + relative
                let name = (relative as NSString).lastPathComponent
                if name.hasPrefix(ThumbnailLayout.temporaryPrefix) {
                    if !keepsTemporaryFiles { try? manager.removeItem(atPath: full) }
                    continue
                }
                guard let parsed = ThumbnailLayout.parse(thumbnail: path), liveOriginals.contains(Array(parsed.original.utf8)) else {
                    guard unlink(full) == 0 || errno == ENOENT else {
                        throw ThumbnailError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
                    }
                    removed.append(path)
                    continue
                }
            }
        }
        let removedSet = Set(removed)
        let gone = try catalog.allThumbnails().filter {
            removedSet.contains($0.path) || !manager.fileExists(atPath: libraryRoot + "/" + $0.path)
        }
        if !gone.isEmpty {
            try journal?.append(gone.map { JournalEntry.thumbnailRemoved(path: $0.path) })
        }
        try catalog.transaction {
            for record in gone { try catalog.removeThumbnail(path: record.path) }
        }
        for folder in folders.sorted(by: { $0.count > $1.count }) {
            if (try? manager.contentsOfDirectory(atPath: folder))?.isEmpty == true {
                try? manager.removeItem(atPath: folder)
            }
        }
        return removed
    }

    /// The same for thumbnails in an object store, which other workers may be filling
    /// meanwhile: rows are read before the listing (an object goes up before its row is
    /// committed, so a row whose object the later listing lacks is gone), and the originals
    /// after it (a thumbnail listed belongs to an original catalogued by then).
    private func pruneRemote(_ thumbnails: ThumbnailStore, catalog: Catalog, journal: ChangeLog?) throws -> [String] {
        let rows = try catalog.allThumbnails()
        var stored: Set<String> = []
        try thumbnails.eachStored { stored.insert($0) }
        let live = Set(try catalog.allOriginals().map(\.path))
        var removed: [String] = []
        for path in stored.sorted() {
            if let parsed = ThumbnailLayout.parse(thumbnail: path), live.contains(parsed.original) { continue }
            try thumbnails.remove(path)
            removed.append(path)
        }
        let removedSet = Set(removed)
        let gone = rows.filter { removedSet.contains($0.path) || !stored.contains($0.path) }
        if !gone.isEmpty {
            try journal?.append(gone.map { JournalEntry.thumbnailRemoved(path: $0.path) })
        }
        try catalog.transaction {
            for record in gone { try catalog.removeThumbnail(path: record.path) }
        }
        return removed
    }
}
