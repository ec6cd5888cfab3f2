/// One URL and what fetching it gave (one row of `sources`, keyed by `url`).
public struct SourceRecord: Sendable, Equatable, Codable {
    public var url: String
    /// The URL after redirects.
    public var finalURL: String?
    /// The original this URL gave, when it gave one.
    public var sha256: String?
    public var etag: String?
    public var lastModified: String?
    public var httpStatus: Int?
    /// ISO 8601 UTC.
    public var fetchedAt: String
    public var outcome: FetchOutcome
    public var reason: String?

    public init(
        url: String, finalURL: String? = nil, sha256: String? = nil, etag: String? = nil,
        lastModified: String? = nil, httpStatus: Int? = nil, fetchedAt: String,
        outcome: FetchOutcome, reason: String? = nil
    ) {
        self.url = url
        self.finalURL = finalURL
        self.sha256 = sha256
        self.etag = etag
        self.lastModified = lastModified
        self.httpStatus = httpStatus
        self.fetchedAt = fetchedAt
        self.outcome = outcome
        self.reason = reason
    }
}
