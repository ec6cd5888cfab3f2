import CCurl
import Foundation

/// What HEAD (or a GET's headers) says about an object.
public struct S3ObjectInfo: Sendable, Equatable {
    /// The whole object's size in bytes (not the size of a range asked for).
    public var size: Int64
    /// The ETag without its quotes: the MD5 hex of a simple upload, "HASH-PARTS" for a
    /// multipart one.
    public var etag: String
    public var contentType: String?
    public var lastModified: Date?
    /// `x-amz-meta-*` headers, names lower-cased and without the prefix.
    public var metadata: [String: String]

    public init(size: Int64, etag: String, contentType: String?, lastModified: Date?, metadata: [String: String]) {
        self.size = size
        self.etag = etag
        self.contentType = contentType
        self.lastModified = lastModified
        self.metadata = metadata
    }

    init(headers: [String: String], rangeRequested: Bool) {
        var size = Int64(headers["content-length"] ?? "") ?? 0
        // A 206 answer: "Content-Range: bytes 0-9/1234" gives the whole size.
        if rangeRequested, let range = headers["content-range"], let slash = range.lastIndex(of: "/"),
           let total = Int64(range[range.index(after: slash)...]) {
            size = total
        }
        var metadata: [String: String] = [:]
        for (name, value) in headers where name.hasPrefix("x-amz-meta-") {
            metadata[String(name.dropFirst("x-amz-meta-".count))] = value
        }
        self.init(size: size, etag: S3ObjectInfo.unquote(headers["etag"] ?? ""), contentType: headers["content-type"],
                  lastModified: headers["last-modified"].flatMap(S3ObjectInfo.httpDate), metadata: metadata)
    }

    static func unquote(_ etag: String) -> String {
        var text = Substring(etag)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    /// An HTTP date ("Wed, 02 Dec 2026 02:54:50 GMT"), parsed by libcurl.
    static func httpDate(_ text: String) -> Date? {
        let seconds = curl_getdate(text, nil)
        return seconds < 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// An ISO 8601 time as S3 listings write it ("2026-12-02T02:54:50.000Z").
    static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
