import CCurl
import CShim

/// Checks that a URL is absolute http(s), with libcurl's own URL parser.
public enum URLValidator {
    public enum Problem: Error, CustomStringConvertible, Equatable {
        case notAURL(String)
        case unsupportedScheme(String)
        case missingHost

        public var description: String {
            switch self {
            case .notAURL(let why): return "not an absolute URL (\(why))"
            case .unsupportedScheme(let scheme): return "unsupported scheme '\(scheme)': only http and https are fetched"
            case .missingHost: return "URL has no host"
            }
        }
    }

    /// Returns the URL's path (percent-encoded) when it is valid.
    @discardableResult
    public static func validate(_ text: String) throws -> String {
        try validated(text).path
    }

    /// What a valid URL's text says, read in one parse.
    public struct Validated: Sendable, Equatable {
        /// The path, percent-encoded.
        public var path: String
        /// The resource the URL names, whatever its spelling: without its fragment (never
        /// sent), scheme and host in lower case, no default port, dot segments resolved.
        /// Two URLs with one identity are one download.
        public var identity: String
        /// What the catalog, the journal and the output record: the URL as given, or,
        /// when it has a password (`user:password@`), as libcurl spells it without the
        /// password. Only the request sees the password.
        public var recorded: String
    }

    public static func validated(_ text: String) throws -> Validated {
        guard !text.contains(where: { $0 == " " || $0.isNewline || $0 == "\t" }) else {
            throw Problem.notAURL("contains white space; percent-encode it as %20")
        }
        // C strings end at a NUL: libcurl would see (and fetch) only the part before it.
        if let control = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw Problem.notAURL("contains the control character U+\(String(format: "%04X", control.value))")
        }
        if text.unicodeScalars.contains("\u{FFFD}") {
            throw Problem.notAURL("contains bytes that are not UTF-8 (or U+FFFD); percent-encode them")
        }
        guard let handle = curl_url() else { throw Problem.notAURL("out of memory") }
        defer { curl_url_cleanup(handle) }
        let code = curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard code == CURLUE_OK else {
            throw Problem.notAURL(String(cString: curl_url_strerror(code)).lowercased())
        }
        let scheme = part(handle, CURLUPART_SCHEME)?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { throw Problem.unsupportedScheme(scheme) }
        guard let host = part(handle, CURLUPART_HOST), !host.isEmpty else { throw Problem.missingHost }
        let path = part(handle, CURLUPART_PATH) ?? "/"
        curl_url_set(handle, CURLUPART_FRAGMENT, nil, 0)
        curl_url_set(handle, CURLUPART_HOST, host.lowercased(), 0)
        // With the password: other credentials make another request.
        let identity = part(handle, CURLUPART_URL, flags: UInt32(CURLU_NO_DEFAULT_PORT)) ?? text
        return Validated(path: path, identity: identity, recorded: withoutPassword(text))
    }

    /// `text` without the password of the URL in it, if any: a listed URL, where
    /// redirects ended, or a line that is no valid URL (cut by hand: libcurl cannot
    /// parse it). Unchanged when there is no password. `shortened`: the text is
    /// the start of a longer line, so it may end inside a password, before the `@`.
    public static func withoutPassword(_ text: String, shortened: Bool = false) -> String {
        guard text.contains("@") || shortened else { return text }
        guard let handle = curl_url() else { return cuttingPassword(text, shortened: shortened) }
        defer { curl_url_cleanup(handle) }
        guard !shortened, curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK else {
            return cuttingPassword(text, shortened: shortened)
        }
        guard part(handle, CURLUPART_PASSWORD) != nil else { return text }
        curl_url_set(handle, CURLUPART_PASSWORD, nil, 0)
        // An empty user name goes too: "http://:pw@host" names no one.
        if part(handle, CURLUPART_USER)?.isEmpty ?? false { curl_url_set(handle, CURLUPART_USER, nil, 0) }
        return part(handle, CURLUPART_URL) ?? cuttingPassword(text, shortened: false)
    }

    /// The password cut out by hand from text libcurl cannot parse, erring on the side
    /// of cutting too much (the text is no URL anyway): a password may hold `/`, `?`
    /// or `#` unencoded, so everything from the first `:` after "scheme://" up to the
    /// text's last `@` goes; in a shortened text, everything from that `:` on.
    private static func cuttingPassword(_ text: String, shortened: Bool) -> String {
        let start = text.range(of: "://").map(\.upperBound) ?? text.startIndex
        guard let colon = text[start...].firstIndex(of: ":") else { return text }
        if shortened { return String(text[..<colon]) + "…" }
        guard let at = text[colon...].lastIndex(of: "@") else { return text }
        return String(text[..<colon]) + String(text[at...])
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
