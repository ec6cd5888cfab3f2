import Foundation

/// Puts a gallery's files into a local folder. A file is replaced (whole, by rename) only when
/// its content changed, so a rerun over a large library rewrites only what changed; files named
/// as the gallery names its own that were not made this time (a photo or month gone) are removed
/// afterwards, and nothing else in the folder is touched.
final class GalleryFolderOutput {
    let root: String
    private(set) var written = 0
    private var made: Set<String> = []
    private var folders: Set<String> = []
    static let temporaryPrefix = ".shoebox-gallery-tmp-"

    init(root: String) throws {
        self.root = root
        try AtomicFileWriter.createFolders(root)
    }

    func write(_ path: String, _ bytes: [UInt8]) throws {
        made.insert(path)
        let file = root + "/" + path
        let folder = FolderPath.containing(file)
        if folders.insert(folder).inserted { try AtomicFileWriter.createFolders(folder) }
        if Self.holds(file, bytes) { return }
        try AtomicFileWriter.write(bytes, to: file, temporaryPrefix: Self.temporaryPrefix)
        written += 1
    }

    /// Whether `file` already has exactly `bytes` (read only when the sizes agree).
    private static func holds(_ file: String, _ bytes: [UInt8]) -> Bool {
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == bytes.count else { return false }
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var existing = [UInt8](repeating: 0, count: bytes.count + 1)
        var total = 0
        while total < existing.count {
            let count = existing.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + total, $0.count - total) }
            if count <= 0 { break }
            total += count
        }
        return total == bytes.count && existing.prefix(total).elementsEqual(bytes)
    }

    /// Removes the gallery's own files that were not made this run, and temporary files a
    /// killed run left; returns how many.
    func removeLeftovers() -> Int {
        var removed = 0
        for folder in ["", "months/", "photos/"] {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder) else { continue }
            for name in names {
                let path = folder + name
                let stale = GallerySite.isGenerated(path) && !made.contains(path)
                if stale || name.hasPrefix(Self.temporaryPrefix), unlink(root + "/" + path) == 0 { removed += 1 }
            }
        }
        return removed
    }
}
