import Foundation

/// Credentials, region and endpoint of an object store, and the client's network limits.
/// `description` never shows the secret key or the session token.
public struct S3Configuration: Sendable, CustomStringConvertible, CustomReflectable {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Temporary credentials' token, sent as `x-amz-security-token`.
    public var sessionToken: String?
    public var region: String
    /// A non-AWS endpoint ("http://127.0.0.1:9000", "https://minio.example"), addressed
    /// path-style (ENDPOINT/BUCKET/KEY); nil for AWS, addressed virtual-hosted
    /// (https://BUCKET.s3.REGION.amazonaws.com/KEY).
    public var endpoint: String?
    /// Seconds to wait for a connection.
    public var connectTimeout: Double = 10
    /// A transfer slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` seconds is abandoned.
    public var lowSpeedLimit: Int = 1024
    public var lowSpeedTime: Int = 30
    public var retryPolicy = S3RetryPolicy()

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil,
                region: String = "us-east-1", endpoint: String? = nil) throws(S3Error) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        if let endpoint {
            var trimmed = Substring(endpoint)
            while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            let lower = trimmed.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), trimmed.count > "https://".count - 1 else {
                throw .invalidConfiguration("the S3 endpoint '\(endpoint)' is not an http:// or https:// URL")
            }
            self.endpoint = String(trimmed)
        } else {
            self.endpoint = nil
        }
        guard region.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }), !region.isEmpty else {
            throw .invalidConfiguration("the region '\(region)' is not a region name")
        }
    }

    /// Reads the AWS conventions: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
    /// AWS_REGION (else AWS_DEFAULT_REGION, else us-east-1), AWS_ENDPOINT_URL_S3 (else
    /// AWS_ENDPOINT_URL) for a non-AWS endpoint. Empty values count as unset.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(S3Error) -> S3Configuration {
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        let accessKey = value("AWS_ACCESS_KEY_ID"), secret = value("AWS_SECRET_ACCESS_KEY")
        let missing = [accessKey == nil ? "AWS_ACCESS_KEY_ID" : nil, secret == nil ? "AWS_SECRET_ACCESS_KEY" : nil]
            .compactMap { $0 }
        guard let accessKey, let secret, missing.isEmpty else { throw .missingCredentials(missing: missing) }
        return try S3Configuration(
            accessKeyID: accessKey, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"),
            region: value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1",
            endpoint: value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL"))
    }

    /// Path-style addressing (for any endpoint given explicitly).
    public var usesPathStyle: Bool { endpoint != nil }

    /// What error messages name: the endpoint URL, or AWS's host for a bucket.
    func endpointName(bucket: String?) -> String {
        if let endpoint { return endpoint }
        if let bucket { return "https://\(bucket).s3.\(region).amazonaws.com" }
        return "https://s3.\(region).amazonaws.com"
    }

    /// The URL of a bucket (nil: the service, for ListBuckets) or of an object in it, with
    /// the key encoded as SigV4 wants it and `query` already canonical.
    func url(bucket: String?, key: String?, query: String) -> String {
        var path: String
        var base: String
        if let endpoint {
            base = endpoint
            path = "/"
            if let bucket {
                path += S3URIEncoding.encode(bucket, keepSlash: false)
                if let key { path += "/" + S3URIEncoding.encode(key, keepSlash: true) }
            }
        } else {
            base = endpointName(bucket: bucket)
            path = "/" + (key.map { S3URIEncoding.encode($0, keepSlash: true) } ?? "")
        }
        if !query.isEmpty { path += "?" + query }
        base += path
        return base
    }

    public var description: String {
        "S3Configuration(accessKeyID: \(accessKeyID), secretAccessKey: <hidden>, sessionToken: "
            + (sessionToken == nil ? "none" : "<hidden>") + ", region: \(region), endpoint: \(endpoint ?? "AWS"))"
    }

    /// For dump() and debuggers: the secrets hidden as in `description`.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessKeyID": accessKeyID, "secretAccessKey": "<hidden>", "sessionToken": sessionToken == nil ? "none" : "<hidden>",
            "region": region, "endpoint": endpoint ?? "AWS",
        ])
    }
}
