import Foundation

/// A multipart upload begun and neither completed nor aborted.
public struct S3MultipartUploadSummary: Sendable, Equatable {
    public var key: String
    public var uploadID: String
    public var initiated: Date?

    public init(key: String, uploadID: String, initiated: Date?) {
        self.key = key
        self.uploadID = uploadID
        self.initiated = initiated
    }
}
