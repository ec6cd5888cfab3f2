import CCurl
import CShim

/// How the final response says where its body ends: its Content-Length headers and
/// Transfer-Encoding, read once from libcurl's header API.
struct ResponseFraming {
    /// Every Content-Length value, in order (a response may repeat the header).
    let contentLengths: [String]
    let transferEncoding: String?
    private let httpVersion: Int

    init(_ handle: UnsafeMutableRawPointer) {
        contentLengths = ResponseInfo.headerValues(handle, "Content-Length")
        transferEncoding = ResponseInfo.header(handle, "Transfer-Encoding")
        var version = 0
        _ = shim_curl_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        httpVersion = version
    }

    /// The numbers of one Content-Length header value: one, or a comma-separated list
    /// (a header repeated and joined by a proxy); nil when any member is not all digits.
    static func lengthValues(_ value: String) -> [String]? {
        let members = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
        guard members.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else { return nil }
        // Leading zeros name the same number.
        return members.map { member in
            let digits = member.drop { $0 == "0" }
            return digits.isEmpty ? "0" : String(digits)
        }
    }

    /// With a Transfer-Encoding, libcurl rightly ignores any Content-Length.
    var isFramedByLength: Bool { transferEncoding == nil }

    /// Whether the body ends where the connection closed (HTTP/1 without Content-Length or
    /// chunked framing), so a cut-off body cannot be told from a whole one by its framing.
    var isDelimitedByClose: Bool {
        let framed = contentLengths.contains { !$0.isEmpty } || transferEncoding?.lowercased().contains("chunked") == true
        return httpVersion < Int(CURL_HTTP_VERSION_2_0) && !framed
    }
}
