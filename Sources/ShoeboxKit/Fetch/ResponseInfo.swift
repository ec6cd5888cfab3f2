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
    /// Seconds to wait, from a Retry-After header (seconds or HTTP date).
    var retryAfter: Double?

    init(handle: UnsafeMutableRawPointer) {
        var code = 0
        if shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK, code > 0 { status = code }
        contentType = Self.string(handle, CURLINFO_CONTENT_TYPE)
        effectiveURL = Self.string(handle, CURLINFO_EFFECTIVE_URL)
        var retry: curl_off_t = -1
        if shim_curl_getinfo_off(handle, CURLINFO_RETRY_AFTER, &retry) == CURLE_OK, retry >= 0,
           Self.header(handle, "Retry-After") != nil {
            retryAfter = Double(retry)
        }
        etag = Self.header(handle, "ETag")
        lastModified = Self.header(handle, "Last-Modified")
    }

    private static func string(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var pointer: UnsafePointer<CChar>?
        guard shim_curl_getinfo_string(handle, info, &pointer) == CURLE_OK, let pointer else { return nil }
        return String(cString: pointer)
    }

    /// A header of the final response (after redirects), through curl's header API.
    private static func header(_ handle: UnsafeMutableRawPointer, _ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let value = header?.pointee.value else { return nil }
        let text = String(cString: value).trimmingWhitespace()
        return text.isEmpty ? nil : text
    }
}
