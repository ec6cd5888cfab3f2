/// A part of a multipart upload, as CompleteMultipartUpload needs it.
public struct S3UploadedPart: Sendable, Equatable {
    /// 1 to 10000 (OpenStack Swift's s3api allows 1000 by default).
    public var partNumber: Int
    /// Without quotes.
    public var etag: String

    public init(partNumber: Int, etag: String) {
        self.partNumber = partNumber
        self.etag = etag
    }
}
