/// One URL to fetch, with where it was listed (for error messages).
public struct FetchItem: Sendable, Equatable {
    public let url: String
    /// "FILE:LINE", "-:LINE" for stdin, or "--url" for a command-line URL.
    public let origin: String

    public init(url: String, origin: String) {
        self.url = url
        self.origin = origin
    }
}
