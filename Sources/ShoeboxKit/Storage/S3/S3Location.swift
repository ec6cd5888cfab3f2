/// Where a library's originals live in an object store: `s3://BUCKET[/PREFIX]`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// The key prefix without leading or trailing '/', "" for the bucket's root.
    public let prefix: String

    /// Parses `s3://BUCKET[/PREFIX]`. The bucket must follow S3's naming rules (3 to 63
    /// lower-case letters, digits, '.' and '-', starting and ending with a letter or digit);
    /// slashes around the prefix are dropped, an empty segment inside it ("a//b") is refused.
    public init(parsing text: String) throws(S3Error) {
        let scheme = "s3://"
        guard text.lowercased().hasPrefix(scheme) else {
            throw .invalidLocation("'\(text)' is not an S3 location: expected s3://BUCKET or s3://BUCKET/PREFIX")
        }
        let rest = text.dropFirst(scheme.count)
        let bucket: Substring
        let prefixPart: Substring
        if let slash = rest.firstIndex(of: "/") {
            bucket = rest[..<slash]
            prefixPart = rest[rest.index(after: slash)...]
        } else {
            bucket = rest
            prefixPart = ""
        }
        try Self.validateBucket(String(bucket), in: text)
        var prefix = prefixPart
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        if prefix.hasPrefix("/") || prefix.contains("//") {
            throw .invalidLocation("'\(text)' has an empty path segment ('//') in its prefix")
        }
        self.bucket = String(bucket)
        self.prefix = String(prefix)
    }

    public init(bucket: String, prefix: String = "") throws(S3Error) {
        try self.init(parsing: "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)"))
    }

    /// The object key of `relativePath` under the prefix: PREFIX/path, with no doubled '/'
    /// (leading slashes of the path are dropped).
    public func key(for relativePath: String) -> String {
        var path = Substring(relativePath)
        while path.hasPrefix("/") { path = path.dropFirst() }
        return prefix.isEmpty ? String(path) : prefix + "/" + path
    }

    /// The prefix to list the location's keys with: "PREFIX/", or "" at the bucket's root.
    public var listingPrefix: String { prefix.isEmpty ? "" : prefix + "/" }

    public var description: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

    static func validateBucket(_ bucket: String, in text: String) throws(S3Error) {
        if bucket.isEmpty {
            throw .invalidLocation("'\(text)' names no bucket: expected s3://BUCKET or s3://BUCKET/PREFIX")
        }
        if bucket.utf8.count < 3 {
            throw .invalidLocation("bucket name '\(bucket)' is too short: S3 bucket names have 3 to 63 characters")
        }
        if bucket.utf8.count > 63 {
            throw .invalidLocation("bucket name '\(bucket.prefix(20))…' is too long: S3 bucket names have 3 to 63 characters")
        }
        let allowed = bucket.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }
        if !allowed {
            throw .invalidLocation(
                "bucket name '\(bucket)' has characters S3 refuses: use lower-case letters, digits, '.' and '-'")
        }
        let edgesOK = [bucket.utf8.first!, bucket.utf8.last!].allSatisfy { $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "-") }
        if !edgesOK || bucket.contains("..") {
            throw .invalidLocation(
                "bucket name '\(bucket)' must start and end with a letter or digit and have no '..'")
        }
    }
}
