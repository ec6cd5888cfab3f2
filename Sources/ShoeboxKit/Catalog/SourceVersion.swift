/// One pair of URL and content ever recorded (a row of `source_versions`): the history
/// `sources` does not keep, since its row for a URL names only the latest content. When
/// `--refresh` stores new bytes for a URL, the older original keeps its version row: where it
/// came from, and when.
public struct SourceVersion: Sendable, Equatable, Codable {
    public var url: String
    public var sha256: String
    public var finalURL: String?
    public var etag: String?
    public var lastModified: String?
    public var httpStatus: Int?
    /// ISO 8601 UTC: the first and the latest time this URL gave these bytes.
    public var firstFetchedAt: String
    public var lastFetchedAt: String

    public init(url: String, sha256: String, finalURL: String? = nil, etag: String? = nil, lastModified: String? = nil,
                httpStatus: Int? = nil, firstFetchedAt: String, lastFetchedAt: String) {
        self.url = url
        self.sha256 = sha256
        self.finalURL = finalURL
        self.etag = etag
        self.lastModified = lastModified
        self.httpStatus = httpStatus
        self.firstFetchedAt = firstFetchedAt
        self.lastFetchedAt = lastFetchedAt
    }

    /// The version a source record is (nil for a URL that gave no content).
    public init?(_ source: SourceRecord) {
        guard let sha256 = source.sha256 else { return nil }
        self.init(url: source.url, sha256: sha256, finalURL: source.finalURL, etag: source.etag, lastModified: source.lastModified,
                  httpStatus: source.httpStatus, firstFetchedAt: source.fetchedAt, lastFetchedAt: source.fetchedAt)
    }

    /// Adds `version` to `versions`, keyed by URL and content: merged with the one there.
    public static func merge(_ version: SourceVersion, into versions: inout [String: SourceVersion]) {
        let key = version.url + "\u{0}" + version.sha256
        versions[key] = versions[key].map { $0.merged(with: version) } ?? version
    }

    /// This version seen again in `later` (same URL and content): its latest fetch and validators.
    public func merged(with later: SourceVersion) -> SourceVersion {
        var merged = later
        merged.firstFetchedAt = min(firstFetchedAt, later.firstFetchedAt)
        merged.lastFetchedAt = max(lastFetchedAt, later.lastFetchedAt)
        return merged
    }
}
