/// An original to make thumbnails for: its path under the library root
/// ("originals/2024/05/01/IMG_0001.jpg"), its content hash and, when known, its size.
public struct ThumbnailSource: Sendable, Hashable {
    public var path: String
    public var sha256: String
    /// The archived size: a file of another size is not the original any more.
    public var bytes: Int64?

    public init(path: String, sha256: String, bytes: Int64? = nil) {
        self.path = path
        self.sha256 = sha256
        self.bytes = bytes
    }
}
