/// One page of ListObjectsV2.
public struct S3ObjectListPage: Sendable, Equatable {
    public var objects: [S3ObjectSummary]
    /// With a delimiter: the "folders" (prefixes up to the delimiter).
    public var commonPrefixes: [String]
    /// Pass as `continuationToken` for the next page; nil on the last page.
    public var nextContinuationToken: String?

    public init(objects: [S3ObjectSummary], commonPrefixes: [String], nextContinuationToken: String?) {
        self.objects = objects
        self.commonPrefixes = commonPrefixes
        self.nextContinuationToken = nextContinuationToken
    }
}
