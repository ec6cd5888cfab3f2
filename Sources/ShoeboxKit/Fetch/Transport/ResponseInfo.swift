import CCurl
import CShim
import Foundation

/// What libcurl knows about the last response of a finished transfer.
/// Strings are copied out: they belong to the handle.
struct ResponseInfo {
    var status: Int?
    var contentType: String?
    var effectiveURL: String?
    var etag: String?
    var lastModified: String?
    /// The file name the server suggests, for a URL that ends in no name.
    var contentDisposition: String?
    /// Seconds to wait, from a Retry-After header (seconds or HTTP date); nil when
    /// absent or unreadable ("soon", "-5"), so the usual backoff applies.
    var retryAfter: Double?

    init(handle: UnsafeMutableRawPointer) {
        var code = 0
        if shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK, code > 0 { status = code }
        contentType = Self.string(handle, CURLINFO_CONTENT_TYPE)
        effectiveURL = Self.string(handle, CURLINFO_EFFECTIVE_URL)
        retryAfter = Self.header(handle, "Retry-After").flatMap { Self.retryAfterSeconds($0) }
        etag = Self.header(handle, "ETag")
        lastModified = Self.header(handle, "Last-Modified")
        contentDisposition = Self.header(handle, "Content-Disposition")
    }

    /// RFC 9110: delay-seconds (digits only) or an HTTP date; nil for anything else.
    /// Read here, not by libcurl, which reads garbage and delays past 2^63 as 0: "retry
    /// at once" to a server asking us to slow down. A delay too long for any clock
    /// stays long (infinity), for --max-retry-wait to cap.
    static func retryAfterSeconds(_ value: String, now: time_t = time(nil)) -> Double? {
        let text = value.trimmingWhitespace()
        if !text.isEmpty && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return Double(text) }
        let date = curl_getdate(text, nil)
        guard date > 0 else { return nil }
        return Double(max(0, date - now))
    }

    /// Where a redirect response sends the request: its Location, resolved against the
    /// URL it answered; nil for a status that is no redirect (300, 304, 305…) or without Location.
    /// libcurl follows no redirect itself here: the engine does, with one hop budget.
    static func redirectTarget(_ handle: UnsafeMutableRawPointer, status: Int) -> String? {
        guard [301, 302, 303, 307, 308].contains(status), let location = header(handle, "Location"),
              let base = string(handle, CURLINFO_EFFECTIVE_URL), let url = curl_url() else { return nil }
        defer { curl_url_cleanup(url) }
        guard curl_url_set(url, CURLUPART_URL, base, 0) == CURLUE_OK,
              curl_url_set(url, CURLUPART_URL, location, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK else { return nil }
        var resolved: UnsafeMutablePointer<CChar>?
        guard curl_url_get(url, CURLUPART_URL, &resolved, 0) == CURLUE_OK, let resolved else { return nil }
        defer { curl_free(resolved) }
        return String(cString: resolved)
    }

    private static func string(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var pointer: UnsafePointer<CChar>?
        guard shim_curl_getinfo_string(handle, info, &pointer) == CURLE_OK, let pointer else { return nil }
        return String(cString: pointer)
    }

    /// Every value of a header the final response repeats, in order.
    static func headerValues(_ handle: UnsafeMutableRawPointer, _ name: String) -> [String] {
        guard let first = headerValue(handle, name, index: 0) else { return [] }
        return [first.value] + (1..<max(first.count, 1)).compactMap { headerValue(handle, name, index: $0)?.value }
    }

    /// A header of the final response (after redirects), through curl's header API.
    static func header(_ handle: UnsafeMutableRawPointer, _ name: String) -> String? {
        guard let text = headerValue(handle, name, index: 0)?.value, !text.isEmpty else { return nil }
        return text
    }

    /// The `index`th value of a header (trimmed), and how many times the response sent it.
    private static func headerValue(_ handle: UnsafeMutableRawPointer, _ name: String, index: Int) -> (value: String, count: Int)? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, index, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let found = header?.pointee, let value = found.value else { return nil }
        return (String(cString: value).trimmingWhitespace(), found.amount)
    }
}
