import Foundation

/// A file found in a library folder, with what `lstat` said about it.
struct LibraryFile: Sendable, Equatable {
    /// Path relative to the library root.
    var path: String
    var bytes: Int64
    var mode: mode_t
    /// Modification time, seconds since 1970 (with fraction).
    var modified: Double
    var isRegular: Bool

    var isWritable: Bool { mode & 0o222 != 0 }

    /// `lstat` of `absolute`; nil with `errno` set when it fails.
    static func stat(absolute: String, relative: String) -> LibraryFile? {
        var info = Glibc.stat()
        guard lstat(absolute, &info) == 0 else { return nil }
        return LibraryFile(
            path: relative, bytes: Int64(info.st_size), mode: info.st_mode,
            modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9,
            isRegular: (info.st_mode & S_IFMT) == S_IFREG)
    }

    /// Every non-folder entry under `folder` (relative to `layout.root`), sorted by path.
    /// A missing folder gives no files.
    static func scan(_ folder: String, in layout: LibraryLayout) -> [LibraryFile] {
        let base = layout.absolute(folder)
        guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
        var files: [LibraryFile] = []
        while let name = walker.nextObject() as? String {
            let relative = folder + "/" + name
            guard let file = stat(absolute: base + "/" + name, relative: relative) else { continue }
            if (file.mode & S_IFMT) == S_IFDIR { continue }
            files.append(file)
        }
        return files.sorted { $0.path < $1.path }
    }
}
