/// One page of ListMultipartUploads.
public struct S3MultipartUploadListPage: Sendable, Equatable {
    public var uploads: [S3MultipartUploadSummary]
    /// Pass both as markers for the next page; nil on the last page.
    public var nextKeyMarker: String?
    public var nextUploadIDMarker: String?

    public init(uploads: [S3MultipartUploadSummary], nextKeyMarker: String?, nextUploadIDMarker: String?) {
        self.uploads = uploads
        self.nextKeyMarker = nextKeyMarker
        self.nextUploadIDMarker = nextUploadIDMarker
    }
}
