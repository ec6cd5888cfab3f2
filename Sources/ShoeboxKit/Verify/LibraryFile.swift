import Foundation

/// A file found in a library folder, with what `lstat` said about it.
struct LibraryFile: Sendable, Equatable {
    /// Path relative to the library root, byte for byte as on disk; for a name that is
    /// not UTF-8, a display form with `\xNN` for its stray bytes (`hasUTF8Name` false).
    var path: String
    var bytes: Int64
    var mode: mode_t
    /// Modification time, seconds since 1970 (with fraction).
    var modified: Double
    var isRegular: Bool
    /// False when the name is not UTF-8: the catalog cannot record such a path.
    var hasUTF8Name = true
    /// The path's bytes as on disk (for a name that is not UTF-8, not those of `path`).
    private var rawPath: [UInt8]?

    var isWritable: Bool { mode & 0o222 != 0 }

    /// The path's exact bytes, for comparing paths: `==` on `String` takes "café" composed
    /// and decomposed for one path, where the file system sees two; and a name shown with
    /// escapes must not match a catalogued name spelled like the escapes.
    var pathKey: [UInt8] { rawPath ?? Array(path.utf8) }

    init(path: String, info: stat, hasUTF8Name: Bool = true, rawPath: [UInt8]? = nil) {
        self.path = path
        self.rawPath = rawPath
        bytes = Int64(info.st_size)
        mode = info.st_mode
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        isRegular = (info.st_mode & S_IFMT) == S_IFREG
        self.hasUTF8Name = hasUTF8Name
    }

    /// An original a store listed: a regular, read-only file (objects cannot be written in place).
    init(stored: StoredOriginal) {
        var info = Glibc.stat()
        info.st_size = off_t(stored.bytes)
        info.st_mode = S_IFREG | 0o444
        info.st_mtim.tv_sec = time_t(stored.modified)
        self.init(path: stored.path, info: info)
    }

    /// `lstat` of `absolute`; nil with `errno` set when it fails.
    static func stat(absolute: String, relative: String) -> LibraryFile? {
        var info = Glibc.stat()
        guard lstat(absolute, &info) == 0 else { return nil }
        return LibraryFile(path: relative, info: info)
    }

    /// What `scan` found under a folder.
    struct Listing: Sendable {
        /// Every non-folder entry, sorted by path.
        var files: [LibraryFile] = []
        /// Folders that could not be listed or entered: the files in them are not in `files`.
        var unreadableFolders: [UnlistedFolder] = []
    }

    /// Every non-folder entry under `folder` (relative to `layout.root`), and the folders
    /// that could not be listed. A missing folder gives nothing.
    static func scan(_ folder: String, in layout: LibraryLayout) -> Listing {
        var files: [LibraryFile] = []
        let failures = DirectoryWalker.walk(layout.absolute(folder)) { entry in
            let isUTF8 = String(validating: entry.relativePath, as: UTF8.self) != nil
            files.append(LibraryFile(
                path: folder + "/" + DirectoryWalker.shown(entry.relativePath), info: entry.info, hasUTF8Name: isUTF8,
                rawPath: isUTF8 ? nil : Array(folder.utf8) + [UInt8(ascii: "/")] + entry.relativePath))
        }
        var listing = Listing()
        listing.files = files.map { ($0.pathKey, $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
        listing.unreadableFolders = failures.map { failure in
            let path = failure.relativePath.isEmpty ? folder : folder + "/" + DirectoryWalker.shown(failure.relativePath)
            return UnlistedFolder(path: path, code: failure.code)
        }
        return listing
    }

}
