import Foundation

/// Puts a gallery's files into the bucket, under PREFIX/gallery/. What each object holds is
/// remembered in PREFIX/gallery/.shoebox-gallery.json (path to SHA-256), so a rerun puts up
/// only the pages that changed; objects named as the gallery names its own that were not made
/// this time are removed after the front page is up.
final class GalleryBucketOutput {
    let store: S3OriginalStore
    static let folder = "gallery"
    static let manifest = folder + "/.shoebox-gallery.json"
    private var remembered: [String: String] = [:]
    private var listed: [String: Int64] = [:]
    private var made: [String: String] = [:]
    private(set) var written = 0
    private let scratch: String

    init(store: S3OriginalStore) throws {
        self.store = store
        listed = try store.sizes(under: Self.folder)
        if listed[Self.manifest] != nil {
            var bytes: [UInt8] = []
            try? store.stream(path: Self.manifest) { bytes.append(contentsOf: $0) }
            remembered = (try? JSONDecoder().decode([String: String].self, from: Data(bytes))) ?? [:]
        }
        scratch = NSTemporaryDirectory() + "/shoebox-gallery-\(UUID().uuidString)"
        try AtomicFileWriter.createFolders(scratch)
    }

    deinit { try? FileManager.default.removeItem(atPath: scratch) }

    static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension {
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "json": return "application/json"
        default: return "text/html; charset=utf-8"
        }
    }

    func write(_ path: String, _ bytes: [UInt8]) throws {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        let sha256 = hasher.finalizeHex()
        let key = Self.folder + "/" + path
        made[path] = sha256
        if remembered[path] == sha256, listed[key] == Int64(bytes.count) { return }
        try put(bytes, at: key)
        written += 1
    }

    private func put(_ bytes: [UInt8], at key: String) throws {
        let file = scratch + "/page"
        try AtomicFileWriter.write(bytes, to: file, temporaryPrefix: ".page-tmp-")
        defer { unlink(file) }
        try store.putDerived(file: file, at: key, contentType: Self.contentType(key))
    }

    /// Records what the bucket now holds, then removes the gallery's objects not made this run.
    func finish() throws -> Int {
        try put(Array(try JSONEncoder().encode(made)), at: Self.manifest)
        var removed = 0
        for key in listed.keys {
            let path = String(key.dropFirst(Self.folder.count + 1))
            guard key.hasPrefix(Self.folder + "/"), GallerySite.isGenerated(path), made[path] == nil else { continue }
            try store.remove(path: key)
            removed += 1
        }
        return removed
    }
}
