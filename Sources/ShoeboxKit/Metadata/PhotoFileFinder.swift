import Foundation

/// Expands the PATH arguments of `inspect`: files as given, directories
/// recursed in path order (hidden entries skipped, only files that look like
/// photos by extension or first bytes).
public enum PhotoFileFinder {
    /// Extensions taken as photos without looking inside.
    static let photoExtensions: Set<String> = Set(ImageFormat.allCases.flatMap { [$0.rawValue, $0.fileExtension] } + ["jpeg", "jpe", "tiff", "hif"])

    public static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        var visited = Set<FolderIdentity>()
        for path in paths {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                result += photos(under: path, visited: &visited)
            } else {
                result.append(path)  // missing or unreadable files are reported by the reader
            }
        }
        return result
    }

    /// Photos under `directory`, sorted by path, recursing into subfolders.
    public static func photos(under directory: String) -> [String] {
        var visited = Set<FolderIdentity>()
        return photos(under: directory, visited: &visited)
    }

    /// A folder's device and inode: a folder reached twice (symbolic link cycles) is walked once.
    struct FolderIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private static func photos(under directory: String, visited: inout Set<FolderIdentity>) -> [String] {
        var info = stat()
        guard stat(directory, &info) == 0,
              visited.insert(FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return [] }
        let base = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return [] }
        var result: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = base + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                result += photos(under: path, visited: &visited)
            } else if looksLikePhoto(path) {
                result.append(path)
            }
        }
        return result
    }

    static func looksLikePhoto(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        if photoExtensions.contains(ext) { return true }
        return FormatSniffer.sniff(fileAt: path) != nil
    }
}
