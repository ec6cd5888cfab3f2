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

    /// Photos under `directory`, sorted by path, recursing into subfolders.
    public static func photos(under directory: String) -> [String] {
        var visited = Set<FolderIdentity>()
        var result = Expansion()
        collectPhotos(under: directory, visited: &visited, into: &result)
        return result.paths
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
        // opendir first, for the reason FileManager's error would bury.
        guard let stream = opendir(base) else {
            result.unreadableFolders.append(UnlistedFolder(path: base, code: errno))
            return
        }
        closedir(stream)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        var entered = true
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = base + "/" + name
            var entry = stat()
            guard stat(path, &entry) == 0 else {
                // A dangling symbolic link is nothing to read; any other failure means the
                // folder can be listed but not entered.
                if errno != ENOENT && entered {
                    entered = false
                    result.unreadableFolders.append(UnlistedFolder(path: base, code: errno))
                }
                continue
            }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR: collectPhotos(under: path, visited: &visited, into: &result)
            case S_IFREG where looksLikePhoto(path): result.paths.append(path)
            default: continue
            }
        }
    }

    static func looksLikePhoto(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        if photoExtensions.contains(ext) { return true }
        return FormatSniffer.sniff(fileAt: path) != nil
    }
}
