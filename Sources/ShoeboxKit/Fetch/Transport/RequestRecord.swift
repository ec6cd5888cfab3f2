import CCurl
import CShim
import Foundation

/// One HTTP request as it ended (each redirect hop and each retry is one): what
/// `fetch --verbose` prints.
public struct RequestRecord: Sendable {
    public var method = "GET"
    /// The URL asked for, without its password.
    public var url: String
    /// 0 when no response came (connection refused, timeout…).
    public var status: Int
    /// Bytes received for the body, as sent (before any Content-Encoding is decoded).
    public var bytes: Int64
    public var milliseconds: Int
    /// 1 for the first request of a URL's attempt, counting retries.
    public var attempt: Int
    /// libcurl's error, when the request failed below HTTP.
    public var error: String?

    public init(url: String, status: Int, bytes: Int64, milliseconds: Int, attempt: Int, error: String? = nil) {
        self.url = url
        self.status = status
        self.bytes = bytes
        self.milliseconds = milliseconds
        self.attempt = attempt
        self.error = error
    }

    /// Read from a finished easy handle.
    static func read(_ handle: UnsafeMutableRawPointer, url: String, attempt: Int, code: CURLcode, detail: String) -> RequestRecord {
        var status = 0
        var bytes: curl_off_t = 0
        var micros: curl_off_t = 0
        _ = shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        _ = shim_curl_getinfo_off(handle, CURLINFO_SIZE_DOWNLOAD_T, &bytes)
        _ = shim_curl_getinfo_off(handle, CURLINFO_TOTAL_TIME_T, &micros)
        let error = code == CURLE_OK ? nil : (detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        return RequestRecord(url: URLValidator.withoutPassword(url), status: status, bytes: Int64(bytes),
                             milliseconds: Int(micros / 1000), attempt: attempt, error: error)
    }
}
