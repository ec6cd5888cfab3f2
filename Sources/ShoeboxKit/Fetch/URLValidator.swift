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
        return part(handle, CURLUPART_PATH) ?? "/"
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
