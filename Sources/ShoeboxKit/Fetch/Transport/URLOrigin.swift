import CCurl

/// A URL's origin (RFC 6454): scheme, host and port, read with libcurl's URL parser.
/// Credentials go only where the request was first sent: a redirect to another
/// origin gets none of them.
struct URLOrigin: Equatable {
    let scheme: String
    let host: String
    let port: String

    /// nil for text libcurl cannot parse as a URL.
    init?(_ text: String) {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK,
              let scheme = Self.part(handle, CURLUPART_SCHEME), let host = Self.part(handle, CURLUPART_HOST) else { return nil }
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        port = Self.part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)) ?? ""
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
