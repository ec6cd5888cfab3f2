/// An original to make thumbnails for: its path under the library root
/// ("originals/2024/05/01/IMG_0001.jpg") and its content hash.
public struct ThumbnailSource: Sendable, Hashable {
    public var path: String
    public var sha256: String

    public init(path: String, sha256: String) {
        self.path = path
        self.sha256 = sha256
    }
}
