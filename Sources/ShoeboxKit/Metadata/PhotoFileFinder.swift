import Foundation

/// Expands the PATH arguments of `inspect`: files as given, directories
/// recursed in path order (hidden entries skipped, only files that look like
/// photos by extension or first bytes).
public enum PhotoFileFinder {
    /// Extensions taken as photos without looking inside.
    static let photoExtensions: Set<String> = Set(ImageFormat.allCases.flatMap { [$0.rawValue, $0.fileExtension] } + ["jpeg", "jpe", "tiff", "hif"])

    /// The files to read for PATH arguments, and the folders among them (or under them)
    /// that could not be listed or entered.
    public struct Expansion: Sendable {
        public var paths: [String] = []
        public var unreadableFolders: [UnlistedFolder] = []
    }

    public static func expand(_ paths: [String]) -> Expansion {
        var result = Expansion()
        var visited = Set<FolderIdentity>()
        for path in paths {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                collectPhotos(under: path, visited: &visited, into: &result)
            } else {
                result.paths.append(path)  // missing or unreadable files are reported by the reader
            }
        }
        return result
    }

    /// A folder's device and inode: a folder reached twice (symbolic link cycles) is walked once.
    struct FolderIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Regular files only: a FIFO's first bytes would wait for a writer that may never come.
    private static func collectPhotos(under directory: String, visited: inout Set<FolderIdentity>, into result: inout Expansion) {
        var info = stat()
        guard stat(directory, &info) == 0,
              visited.insert(FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return }
        let base = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        guard let names = listing(base, into: &result) else { return }
        var entered = true
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = base + "/" + name
            var link = stat()
            guard lstat(path, &link) == 0 else {
                // Listed but not to be looked at: the folder cannot be entered.
                let code = errno
                if code != ENOENT && entered {
                    entered = false
                    result.unreadableFolders.append(UnlistedFolder(path: base, code: code))
                }
                continue
            }
            // Symbolic links are followed; a dangling or looping one is nothing to read.
            var entry = link
            if (link.st_mode & S_IFMT) == S_IFLNK, stat(path, &entry) != 0 { continue }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR: collectPhotos(under: path, visited: &visited, into: &result)
            case S_IFREG where looksLikePhoto(path): result.paths.append(path)
            default: continue
            }
        }
    }

    /// The names in `folder` (UTF-8 ones: the path type cannot carry others), or nil after
    /// noting why the folder cannot be listed.
    private static func listing(_ folder: String, into result: inout Expansion) -> [String]? {
        let listed = DirectoryWalker.names(in: Array(folder.utf8))
        guard let names = listed.names else {
            result.unreadableFolders.append(UnlistedFolder(path: folder, code: listed.code))
            return nil
        }
        return names.compactMap { String(validating: $0, as: UTF8.self) }
    }

    static func looksLikePhoto(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        if photoExtensions.contains(ext) { return true }
        return FormatSniffer.sniff(fileAt: path) != nil
    }
}
