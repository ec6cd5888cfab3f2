/// One HTTP transfer to run: the URL and, for `--refresh`, the validators of the archived copy.
public struct TransferRequest: Sendable {
    public let item: FetchItem
    public let etag: String?
    public let lastModified: String?

    public init(item: FetchItem, etag: String? = nil, lastModified: String? = nil) {
        self.item = item
        self.etag = etag
        self.lastModified = lastModified
    }

    public var isConditional: Bool { etag != nil || lastModified != nil }
}
