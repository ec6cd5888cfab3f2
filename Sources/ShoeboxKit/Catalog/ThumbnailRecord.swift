/// One thumbnail made from an original (one row of `thumbnails`).
public struct ThumbnailRecord: Sendable, Equatable, Codable {
    public var originalSHA256: String
    /// The size spec it was made for, e.g. "256" or "300x200".
    public var size: String
    /// Path relative to the library root, under "thumbnails/".
    public var path: String
    public var format: String
    public var width: Int
    public var height: Int
    public var bytes: Int64
    /// ISO 8601 UTC.
    public var createdAt: String
    /// The encoder settings it was made with (`ThumbnailOptions.settings`); nil for
    /// thumbnails catalogued before schema 2, which `thumbs` remakes.
    public var settings: String?

    public init(
        originalSHA256: String, size: String, path: String, format: String, width: Int, height: Int, bytes: Int64,
        createdAt: String, settings: String? = nil
    ) {
        self.originalSHA256 = originalSHA256
        self.size = size
        self.path = path
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
        self.createdAt = createdAt
        self.settings = settings
    }
}
