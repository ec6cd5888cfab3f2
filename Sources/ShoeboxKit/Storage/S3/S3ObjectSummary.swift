import Foundation

/// One object of a listing.
public struct S3ObjectSummary: Sendable, Equatable {
    public var key: String
    public var size: Int64
    /// Without quotes (see S3ObjectInfo.etag).
    public var etag: String
    public var lastModified: Date?

    public init(key: String, size: Int64, etag: String, lastModified: Date?) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}
