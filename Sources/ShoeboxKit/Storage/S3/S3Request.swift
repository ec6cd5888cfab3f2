import Foundation

/// One S3 call as the transport sends it.
struct S3Request {
    var method: String
    var bucket: String?
    var key: String?
    /// Unencoded names and values; the transport sorts and encodes them.
    var query: [(name: String, value: String)] = []
    /// Extra headers (content-type, x-amz-meta-*, range…); every one is signed by libcurl.
    var headers: [(name: String, value: String)] = []
    /// The body: bytes in memory (hashed here for `x-amz-content-sha256`) or a slice of a
    /// file streamed from disk (hashed by the caller).
    var body: Body?

    enum Body {
        case data(Data)
        case file(S3FileSlice)

        var count: Int64 {
            switch self {
            case .data(let data): return Int64(data.count)
            case .file(let slice): return slice.length
            }
        }
    }

    init(method: String, bucket: String?, key: String? = nil, query: [(name: String, value: String)] = [],
         headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.bucket = bucket
        self.key = key
        self.query = query
        self.headers = headers
        self.body = body.map(Body.data)
    }

    init(method: String, bucket: String?, key: String? = nil, query: [(name: String, value: String)] = [],
         headers: [(name: String, value: String)] = [], file: S3FileSlice) {
        self.init(method: method, bucket: bucket, key: key, query: query, headers: headers)
        body = .file(file)
    }

    /// "PUT s3://bucket/key" for messages.
    var summary: String {
        var text = method + " s3://" + (bucket ?? "")
        if let key { text += "/" + key }
        if query.contains(where: { $0.name == "uploads" }) { text += " (multipart upload)" }
        if query.contains(where: { $0.name == "uploadId" }) { text += " (multipart upload part or completion)" }
        return text
    }

    /// The resource errors name: s3://bucket/key or s3://bucket.
    var resource: String {
        "s3://" + (bucket ?? "") + (key.map { "/" + $0 } ?? "")
    }
}
