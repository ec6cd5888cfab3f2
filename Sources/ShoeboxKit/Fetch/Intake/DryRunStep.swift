/// What `fetch --dry-run` says one list line or --url would come to.
public struct DryRunStep: Sendable, Equatable {
    public enum Action: String, Sendable {
        /// Would be requested (with --refresh, an archived URL is revalidated).
        case fetch
        /// Already archived: not requested.
        case skip
        /// Not requested: an invalid line, an unsupported scheme, or a URL listed before.
        case refuse
    }

    public var action: Action
    /// The URL without its password; for a refused line, the line as listed (password hidden).
    public var url: String
    /// "FILE:LINE" or "--url".
    public var origin: String
    /// For `skip` (and an archived URL `fetch` revalidates): the original's path in the library.
    public var path: String?
    /// Why a line is refused, or why a `fetch` asks conditionally ("revalidate").
    public var reason: String?

    public init(action: Action, url: String, origin: String, path: String? = nil, reason: String? = nil) {
        self.action = action
        self.url = url
        self.origin = origin
        self.path = path
        self.reason = reason
    }
}
