/// One URL to fetch, with where it was listed (for error messages).
public struct FetchItem: Sendable, Equatable {
    public let url: String
    /// "FILE:LINE", "-:LINE" for stdin, or "--url" for a command-line URL.
    public let origin: String
    /// The resource the URL names (`URLValidator.Validated.identity`): what "listed twice" compares.
    public let identity: String
    /// The URL without its password (`URLValidator.Validated.recorded`): what is
    /// looked up, recorded and shown. `url`, password and all, is only requested.
    public let recordedURL: String

    public init(url: String, origin: String, identity: String? = nil, recordedURL: String? = nil) {
        self.url = url
        self.origin = origin
        self.identity = identity ?? url
        self.recordedURL = recordedURL ?? URLValidator.withoutPassword(url)
    }
}
