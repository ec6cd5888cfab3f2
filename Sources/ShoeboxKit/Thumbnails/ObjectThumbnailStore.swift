import Foundation

/// Thumbnails as objects beside the originals in an object store, PREFIX/thumbnails/: the
/// renderer writes each into a scratch folder of this run under TMPDIR, from which it goes up
/// in one PUT (replacing an older one: a PUT is atomic, so the bucket never holds half a
/// thumbnail) and is deleted. What is stored is listed once per run (`prepare`): a thousand
/// thumbnails a request, where a HEAD each would be a request per thumbnail.
public final class ObjectThumbnailStore: ThumbnailStore, @unchecked Sendable {
    public let store: S3OriginalStore
    public let renderFolder: String
    private let lock = NSLock()
    private var listed: [String: Int64] = [:]

    /// Makes the scratch folder (`shoebox-thumbs-XXXXXX` under TMPDIR, removed by `finish`).
    public init(store: S3OriginalStore) throws {
        self.store = store
        let parent = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((parent + "/shoebox-thumbs-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw ThumbnailError.cannotWrite(path: parent, reason: String(cString: strerror(errno)))
        }
        renderFolder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var comparesTimes: Bool { false }
    public var isLocal: Bool { false }

    public func prepare() throws {
        let found = try store.sizes(under: ThumbnailLayout.folder)
        lock.withLock { listed = found }
    }

    public func stored(_ path: String) -> StoredThumbnail? {
        lock.withLock { listed[path] }.map { StoredThumbnail(bytes: $0, modified: nil) }
    }

    public func keep(_ path: String, format: ThumbnailFormat) throws {
        let file = renderFolder + "/" + path
        defer { unlink(file) }
        var info = stat()
        let bytes = stat(file, &info) == 0 ? Int64(info.st_size) : 0
        do {
            try store.putDerived(file: file, at: path, contentType: format.mimeType)
        } catch {
            throw ThumbnailError.saveFailed(path: store.location(of: path), reason: "\(error)")
        }
        lock.withLock { listed[path] = bytes }
    }

    public func discardRendered(_ path: String) {
        unlink(renderFolder + "/" + path)
    }

    public func remove(_ path: String) throws {
        do {
            try store.remove(path: path)
        } catch {
            throw ThumbnailError.cannotWrite(path: store.location(of: path), reason: "\(error)")
        }
        _ = lock.withLock { listed.removeValue(forKey: path) }
    }

    public func eachStored(_ each: (String) throws -> Void) throws {
        try store.list(under: ThumbnailLayout.folder) { try each($0.path) }
    }

    public func location(of path: String) -> String { store.location(of: path) }

    public func finish() {
        try? FileManager.default.removeItem(atPath: renderFolder)
    }
}
