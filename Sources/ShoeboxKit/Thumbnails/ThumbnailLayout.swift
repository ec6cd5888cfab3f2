import Foundation

/// Where thumbnails live: `thumbnails/SIZE/<path under originals/>.<ext>`.
public enum ThumbnailLayout {
    public static let folder = "thumbnails"
    public static let originalsPrefix = "originals/"
    /// How the name of a thumbnail being written begins; it is renamed into place when complete.
    public static let temporaryPrefix = ".tmp-"

    /// The temporary files under thumbnails/ that an interrupted run (kill -9, power loss)
    /// left, relative to `libraryRoot` (as shown to people, and byte for byte).
    static func leftovers(in libraryRoot: String) -> [(shown: String, path: [UInt8])] {
        var found: [(shown: String, path: [UInt8])] = []
        DirectoryWalker.walk(libraryRoot + "/" + folder) { entry in
            let name = entry.relativePath.split(separator: UInt8(ascii: "/")).last ?? []
            guard name.starts(with: temporaryPrefix.utf8) else { return }
            let path = Array(folder.utf8) + [UInt8(ascii: "/")] + entry.relativePath
            found.append((DirectoryWalker.shown(path), path))
        }
        return found.sorted { $0.path.lexicographicallyPrecedes($1.path) }
    }

    /// Removes what `leftovers` finds; returns how many files went.
    static func removeLeftovers(in libraryRoot: String) -> Int {
        leftovers(in: libraryRoot).filter { leftover in
            DirectoryWalker.withCString(Array(libraryRoot.utf8) + [UInt8(ascii: "/")] + leftover.path) { unlink($0) } == 0
        }.count
    }

    /// The thumbnail path (relative to the library root) for an original, or nil
    /// when the path is not a plain path under originals/.
    public static func path(forOriginal original: String, size: ThumbnailSize, format: ThumbnailFormat) -> String? {
        guard LibraryLayout.isPlainOriginalPath(original) else { return nil }
        let rest = original.dropFirst(originalsPrefix.count)
        return "\(folder)/\(size.name)/\(rest).\(format.fileExtension)"
    }

    /// The original (relative path) a thumbnail path was made from, and its size
    /// folder and format; nil for anything that is not a thumbnail.
    public static func parse(thumbnail path: String) -> (original: String, size: String, format: ThumbnailFormat)? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count >= 3, components[0] == Substring(folder) else { return nil }
        let file = components[components.count - 1]
        guard let dot = file.lastIndex(of: "."),
              let format = ThumbnailFormat(fileExtension: String(file[file.index(after: dot)...])) else { return nil }
        let middle = components[2..<(components.count - 1)].map(String.init)
        let originalName = String(file[..<dot])
        guard !originalName.isEmpty else { return nil }
        return (originalsPrefix + (middle + [originalName]).joined(separator: "/"), String(components[1]), format)
    }
}
