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
        /// The URL as given, without a password in it (`user:password@`): what the
        /// catalog, the journal and the output record. Only the request sees the password.
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
        let recorded = removePassword(handle) ?? text
        curl_url_set(handle, CURLUPART_FRAGMENT, nil, 0)
        curl_url_set(handle, CURLUPART_HOST, host.lowercased(), 0)
        let identity = part(handle, CURLUPART_URL, flags: UInt32(CURLU_NO_DEFAULT_PORT)) ?? text
        return Validated(path: path, identity: identity, recorded: recorded)
    }

    /// `url` without the password in it, if any (for a URL libcurl reports, such as
    /// where redirects ended); unchanged when it has none.
    public static func withoutPassword(_ url: String) -> String {
        guard url.contains("@"), let handle = curl_url() else { return url }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK else { return url }
        return removePassword(handle) ?? url
    }

    /// Takes the password out of the parsed URL and returns the URL without it;
    /// nil when it had none. An empty user name goes too ("http://:pw@host" names no one).
    private static func removePassword(_ handle: OpaquePointer) -> String? {
        guard part(handle, CURLUPART_PASSWORD) != nil else { return nil }
        curl_url_set(handle, CURLUPART_PASSWORD, nil, 0)
        if part(handle, CURLUPART_USER)?.isEmpty ?? false { curl_url_set(handle, CURLUPART_USER, nil, 0) }
        return part(handle, CURLUPART_URL)
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
