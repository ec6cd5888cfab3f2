/// The bytes of an original in a store, read in windows through `OriginalStore.read`:
/// for a remote store each window is one ranged GET, so reading the metadata of a photo
/// costs a request or two, never its whole body. Not thread-safe: one per read.
final class StoreByteSource: ByteSource {
    /// Large enough for the headers and EXIF of most photos in one request.
    static let windowSize = 64 * 1024
    let store: OriginalStore
    let path: String
    let size: Int
    private var window: [UInt8] = []
    private var windowStart = 0

    init(store: OriginalStore, path: String) throws {
        self.store = store
        self.path = path
        guard let size = try store.size(path: path) else {
            throw MetadataError.cannotOpen(path: store.location(of: path), reason: "no such original in the store")
        }
        self.size = Int(size)
    }

    func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        if offset >= windowStart, offset + wanted <= windowStart + window.count {
            return Array(window[(offset - windowStart)..<(offset - windowStart + wanted)])
        }
        if wanted > Self.windowSize {
            return try store.read(path: path, offset: Int64(offset), count: wanted)
        }
        window = try store.read(path: path, offset: Int64(offset), count: Self.windowSize)
        windowStart = offset
        return Array(window.prefix(wanted))
    }
}
