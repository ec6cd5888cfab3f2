import Foundation

/// Removes thumbnails whose original is no longer in the catalog,
/// left-over temporary files, catalog rows for missing thumbnail files, and
/// the folders this empties.
struct ThumbnailPruner {
    let libraryRoot: String

    /// Returns the removed thumbnail paths (relative to the library root). `liveOriginals`
    /// holds paths as bytes: a decomposed twin of a live name is another original.
    /// Removals are journaled in `journal` (when there is one) before they are committed.
    func prune(liveOriginals: Set<[UInt8]>, catalog: Catalog, journal: ChangeLog?) throws -> [String] {
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
                    try? manager.removeItem(atPath: full)
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
}
