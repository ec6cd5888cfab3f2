import Foundation

/// A small S3 client over libcurl: synchronous calls on the caller's thread, safe to use from
/// several threads at once. Every call throws `S3Error` (the streaming GET also rethrows what
/// its receiver throws). Transient failures are retried per `configuration.retryPolicy`.
///
/// Keys are sent as given (UTF-8, percent-encoded as SigV4 wants). ETags are returned
/// without their quotes.
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    private let transport: S3Transport

    public init(configuration: S3Configuration) {
        self.configuration = configuration
        transport = S3Transport(configuration: configuration)
    }

    // MARK: Buckets

    /// Succeeds when the bucket exists and the credentials may use it.
    public func headBucket(_ bucket: String) throws {
        do {
            _ = try transport.perform(S3Request(method: "HEAD", bucket: bucket))
        } catch S3Error.accessDenied(let resource, let message) {
            // A HEAD answer has no body to say why (a wrong secret key, an unknown access key, the
            // clock): a one-key listing asks again, and its error names the cause.
            _ = try listObjectsV2(bucket: bucket, maxKeys: 1)
            throw S3Error.accessDenied(resource: resource, message: message)
        }
    }

    /// Makes a bucket (in the configured region).
    public func createBucket(_ bucket: String) throws {
        try S3Location.validateBucket(bucket, in: "s3://\(bucket)")
        var body: Data?
        var headers: [(name: String, value: String)] = []
        if configuration.endpoint == nil && configuration.region != "us-east-1" {
            body = Data(("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<LocationConstraint>\(configuration.region)</LocationConstraint></CreateBucketConfiguration>").utf8)
            headers.append(("Content-Type", "application/xml"))
        }
        _ = try transport.perform(S3Request(method: "PUT", bucket: bucket, headers: headers, body: body ?? Data()))
    }

    // MARK: Objects

    public func headObject(bucket: String, key: String) throws -> S3ObjectInfo {
        let response = try transport.perform(S3Request(method: "HEAD", bucket: bucket, key: key))
        return S3ObjectInfo(headers: response.headers, rangeRequested: false)
    }

    /// The whole object, in memory.
    public func getObject(bucket: String, key: String) throws -> Data {
        try transport.perform(S3Request(method: "GET", bucket: bucket, key: key)).body
    }

    /// Bytes `range.lowerBound` through `range.upperBound` (inclusive) of the object; fewer when the
    /// object ends before.
    public func getObject(bucket: String, key: String, range: ClosedRange<Int64>) throws -> Data {
        let response = try transport.perform(S3Request(
            method: "GET", bucket: bucket, key: key, headers: [("Range", Self.rangeHeader(range))]))
        if response.status == 200 {
            // A server that ignored Range sent everything: keep the part asked for.
            let body = response.body
            let start = Int(min(range.lowerBound, Int64(body.count)))
            let end = Int(min(range.upperBound + 1, Int64(body.count)))
            return body.subdata(in: start..<end)
        }
        return response.body
    }

    /// Streams the object (or a range of it) to `receive`, chunk by chunk, as it arrives: for
    /// hashing or writing big objects without holding them. Returns the object's headers.
    /// What `receive` throws ends the transfer and is rethrown. Not retried once bytes were
    /// received (the caller would see them twice).
    @discardableResult
    public func getObject(bucket: String, key: String, range: ClosedRange<Int64>? = nil,
                          receive: (UnsafeRawBufferPointer) throws -> Void) throws -> S3ObjectInfo {
        let headers = range.map { [(name: "Range", value: Self.rangeHeader($0))] } ?? []
        let response = try withoutActuallyEscaping(receive) { receive in
            try transport.perform(S3Request(method: "GET", bucket: bucket, key: key, headers: headers), receive: receive)
        }
        if range != nil && response.status == 200 {
            throw S3Error.invalidResponse("GET s3://\(bucket)/\(key) ignored the Range header and sent the whole object")
        }
        return S3ObjectInfo(headers: response.headers, rangeRequested: range != nil)
    }

    /// Stores `data` as the object (at most 5 GiB: use a multipart upload beyond). Returns the ETag.
    @discardableResult
    public func putObject(bucket: String, key: String, data: Data, contentType: String? = nil,
                          metadata: [String: String] = [:]) throws -> String {
        let response = try transport.perform(S3Request(
            method: "PUT", bucket: bucket, key: key,
            headers: try Self.objectHeaders(contentType: contentType, metadata: metadata), body: data))
        return S3ObjectInfo.unquote(response.header("etag") ?? "")
    }

    /// Stores bytes of a file as the object (at most 5 GiB), streamed from the file with the
    /// declared hash as `x-amz-content-sha256` (see `S3FileSlice`: a file that no longer holds
    /// those bytes is refused with `S3StoreError.contentChanged` or `.shortRead`, and no object
    /// is made). Returns the ETag.
    @discardableResult
    public func putObject(bucket: String, key: String, file: S3FileSlice, contentType: String? = nil,
                          metadata: [String: String] = [:]) throws -> String {
        let response = try send(S3Request(
            method: "PUT", bucket: bucket, key: key,
            headers: try Self.objectHeaders(contentType: contentType, metadata: metadata), file: file), file: file)
        return S3ObjectInfo.unquote(response.header("etag") ?? "")
    }

    /// Sends a request whose body is `file`. The server's BadDigest (the body it got does not
    /// hash to `x-amz-content-sha256`) says the same as the transport's own check.
    private func send(_ request: S3Request, file: S3FileSlice) throws -> S3Response {
        do {
            return try transport.perform(request)
        } catch S3Error.http(_, "BadDigest", _, _) {
            throw S3StoreError.contentChanged(path: file.path, sha256: file.sha256)
        }
    }

    /// Copies an object within the store (source at most 5 GiB); with `.replace`, the copy gets
    /// `contentType` and `metadata` instead of the source's. Returns the new ETag.
    @discardableResult
    public func copyObject(sourceBucket: String, sourceKey: String, bucket: String, key: String,
                           metadataDirective: S3MetadataDirective = .replace,
                           contentType: String? = nil, metadata: [String: String] = [:]) throws -> String {
        var headers: [(name: String, value: String)] = [
            ("x-amz-copy-source", "/" + S3URIEncoding.encode(sourceBucket, keepSlash: false) + "/"
                + S3URIEncoding.encode(sourceKey, keepSlash: true)),
            ("x-amz-metadata-directive", metadataDirective.rawValue),
        ]
        if metadataDirective == .replace {
            headers += try Self.objectHeaders(contentType: contentType, metadata: metadata)
        }
        let request = S3Request(method: "PUT", bucket: bucket, key: key, headers: headers, body: Data())
        let response: S3Response
        do {
            response = try transport.perform(request)
        } catch S3Error.noSuchKey {
            throw S3Error.noSuchKey(bucket: sourceBucket, key: sourceKey)
        }
        // A copy can fail after its 200 has been sent: the body is then an <Error>.
        guard let root = S3XMLElement.parse(response.body) else {
            throw S3Error.invalidResponse("copy to s3://\(bucket)/\(key) answered with no CopyObjectResult")
        }
        if root.name == "Error" {
            throw transport.mapError(status: response.status, code: root.value("Code"), message: root.value("Message"), request: request)
        }
        return S3ObjectInfo.unquote(root.value("ETag") ?? "")
    }

    /// Deletes the object. S3 answers 204 whether or not it existed.
    public func deleteObject(bucket: String, key: String) throws {
        _ = try transport.perform(S3Request(method: "DELETE", bucket: bucket, key: key))
    }

    /// One page of the bucket's objects whose keys start with `prefix`, in key order.
    /// `maxKeys` caps the page (S3's default and maximum: 1000). With a `delimiter`, keys
    /// past it are grouped in `commonPrefixes`.
    public func listObjectsV2(bucket: String, prefix: String = "", delimiter: String? = nil,
                              continuationToken: String? = nil, maxKeys: Int? = nil) throws -> S3ObjectListPage {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("encoding-type", "url")]
        if !prefix.isEmpty { query.append(("prefix", prefix)) }
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        if let maxKeys { query.append(("max-keys", String(maxKeys))) }
        let request = S3Request(method: "GET", bucket: bucket, query: query)
        let root = try xml(transport.perform(request).body, expecting: "ListBucketResult", request: request)
        // encoding-type=url: keys come percent-encoded (XML cannot carry every character).
        let encoded = root.value("EncodingType") == "url"
        let decode = { (text: String) in encoded ? S3URIEncoding.decodeListingValue(text) : text }
        let objects = root.children("Contents").map { item in
            S3ObjectSummary(
                key: decode(item.value("Key") ?? ""), size: Int64(item.value("Size") ?? "") ?? 0,
                etag: S3ObjectInfo.unquote(item.value("ETag") ?? ""),
                lastModified: item.value("LastModified").flatMap(S3ObjectInfo.isoDate))
        }
        let prefixes = root.children("CommonPrefixes").compactMap { $0.value("Prefix").map(decode) }
        let truncated = root.value("IsTruncated") == "true"
        let token = root.value("NextContinuationToken").flatMap { $0.isEmpty ? nil : $0 }
        if truncated && token == nil {
            throw S3Error.invalidResponse("a truncated listing of s3://\(bucket) gave no NextContinuationToken")
        }
        return S3ObjectListPage(objects: objects, commonPrefixes: prefixes, nextContinuationToken: truncated ? token : nil)
    }

    // MARK: Multipart uploads

    /// Begins a multipart upload; returns its upload id. The content type and metadata are the
    /// finished object's.
    public func createMultipartUpload(bucket: String, key: String, contentType: String? = nil,
                                      metadata: [String: String] = [:]) throws -> String {
        var headers = try Self.objectHeaders(contentType: contentType, metadata: metadata)
        if contentType == nil { headers.append(("Content-Type", "application/octet-stream")) }
        let request = S3Request(method: "POST", bucket: bucket, key: key, query: [("uploads", "")], headers: headers, body: Data())
        let root = try xml(transport.perform(request).body, expecting: "InitiateMultipartUploadResult", request: request)
        guard let uploadID = root.value("UploadId"), !uploadID.isEmpty else {
            throw S3Error.invalidResponse("CreateMultipartUpload for s3://\(bucket)/\(key) gave no UploadId")
        }
        return uploadID
    }

    /// Uploads part `partNumber` (1-based; every part but the last at least 5 MiB).
    public func uploadPart(bucket: String, key: String, uploadID: String, partNumber: Int, data: Data) throws -> S3UploadedPart {
        let response = try transport.perform(S3Request(
            method: "PUT", bucket: bucket, key: key,
            query: [("partNumber", String(partNumber)), ("uploadId", uploadID)], body: data))
        return try Self.uploadedPart(response, number: partNumber, bucket: bucket, key: key)
    }

    /// Uploads part `partNumber` from bytes of a file, streamed and checked as `putObject(file:)` does.
    public func uploadPart(bucket: String, key: String, uploadID: String, partNumber: Int, file: S3FileSlice) throws -> S3UploadedPart {
        let response = try send(S3Request(
            method: "PUT", bucket: bucket, key: key,
            query: [("partNumber", String(partNumber)), ("uploadId", uploadID)], file: file), file: file)
        return try Self.uploadedPart(response, number: partNumber, bucket: bucket, key: key)
    }

    private static func uploadedPart(_ response: S3Response, number: Int, bucket: String, key: String) throws -> S3UploadedPart {
        guard let etag = response.header("etag") else {
            throw S3Error.invalidResponse("part \(number) of s3://\(bucket)/\(key) was stored without an ETag")
        }
        return S3UploadedPart(partNumber: number, etag: S3ObjectInfo.unquote(etag))
    }

    /// Joins the parts (in part-number order) into the object; returns its ETag.
    @discardableResult
    public func completeMultipartUpload(bucket: String, key: String, uploadID: String, parts: [S3UploadedPart]) throws -> String {
        var body = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts.sorted(by: { $0.partNumber < $1.partNumber }) {
            body += "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>\"\(Self.xmlEscape(part.etag))\"</ETag></Part>"
        }
        body += "</CompleteMultipartUpload>"
        let request = S3Request(
            method: "POST", bucket: bucket, key: key, query: [("uploadId", uploadID)],
            headers: [("Content-Type", "application/xml")], body: Data(body.utf8))
        let response = try transport.perform(request)
        // S3 may answer 200 and report a failure in the body.
        guard let root = S3XMLElement.parse(response.body) else {
            throw S3Error.invalidResponse("CompleteMultipartUpload for s3://\(bucket)/\(key) answered with no XML")
        }
        if root.name == "Error" {
            throw transport.mapError(status: response.status, code: root.value("Code"), message: root.value("Message"), request: request)
        }
        return S3ObjectInfo.unquote(root.value("ETag") ?? "")
    }

    /// Abandons the upload and frees its parts.
    public func abortMultipartUpload(bucket: String, key: String, uploadID: String) throws {
        _ = try transport.perform(S3Request(method: "DELETE", bucket: bucket, key: key, query: [("uploadId", uploadID)]))
    }

    /// One page of the multipart uploads in progress whose keys start with `prefix`.
    public func listMultipartUploads(bucket: String, prefix: String = "", keyMarker: String? = nil,
                                     uploadIDMarker: String? = nil, maxUploads: Int? = nil) throws -> S3MultipartUploadListPage {
        var query: [(name: String, value: String)] = [("uploads", ""), ("encoding-type", "url")]
        if !prefix.isEmpty { query.append(("prefix", prefix)) }
        if let keyMarker { query.append(("key-marker", keyMarker)) }
        if let uploadIDMarker { query.append(("upload-id-marker", uploadIDMarker)) }
        if let maxUploads { query.append(("max-uploads", String(maxUploads))) }
        let request = S3Request(method: "GET", bucket: bucket, query: query)
        let root = try xml(transport.perform(request).body, expecting: "ListMultipartUploadsResult", request: request)
        let encoded = root.value("EncodingType") == "url"
        let decode = { (text: String) in encoded ? S3URIEncoding.decodeListingValue(text) : text }
        let uploads = root.children("Upload").map {
            S3MultipartUploadSummary(key: decode($0.value("Key") ?? ""), uploadID: $0.value("UploadId") ?? "",
                                     initiated: $0.value("Initiated").flatMap(S3ObjectInfo.isoDate))
        }
        guard root.value("IsTruncated") == "true" else {
            return S3MultipartUploadListPage(uploads: uploads, nextKeyMarker: nil, nextUploadIDMarker: nil)
        }
        return S3MultipartUploadListPage(
            uploads: uploads, nextKeyMarker: root.value("NextKeyMarker").map(decode),
            nextUploadIDMarker: root.value("NextUploadIdMarker"))
    }

    /// When the upload last took a part (its newest part's LastModified), nil when it has none
    /// yet. One page of up to 1,000 parts: the most a Swift upload holds.
    public func lastPartTime(bucket: String, key: String, uploadID: String) throws -> Date? {
        let request = S3Request(method: "GET", bucket: bucket, key: key, query: [("uploadId", uploadID), ("max-parts", "1000")])
        let root = try xml(transport.perform(request).body, expecting: "ListPartsResult", request: request)
        return root.children("Part").compactMap { $0.value("LastModified").flatMap(S3ObjectInfo.isoDate) }.max()
    }

    /// Every multipart upload in progress under `prefix`, following the pages.
    public func listAllMultipartUploads(bucket: String, prefix: String = "") throws -> [S3MultipartUploadSummary] {
        var all: [S3MultipartUploadSummary] = []
        var keyMarker: String?, uploadIDMarker: String?
        repeat {
            let page = try listMultipartUploads(bucket: bucket, prefix: prefix, keyMarker: keyMarker, uploadIDMarker: uploadIDMarker)
            all += page.uploads
            if page.nextKeyMarker == keyMarker && page.nextUploadIDMarker == uploadIDMarker { break }
            keyMarker = page.nextKeyMarker
            uploadIDMarker = page.nextUploadIDMarker
        } while keyMarker != nil
        return all
    }

    // MARK: Helpers

    static func rangeHeader(_ range: ClosedRange<Int64>) -> String {
        "bytes=\(range.lowerBound)-\(range.upperBound)"
    }

    /// Content-Type and x-amz-meta-* headers. Metadata names are lower-cased; names and values
    /// must be printable ASCII (S3 returns other bytes unreliably).
    static func objectHeaders(contentType: String?, metadata: [String: String]) throws -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let contentType {
            guard isHeaderText(contentType) else { throw S3Error.invalidConfiguration("content type '\(contentType)' is not printable ASCII") }
            headers.append(("Content-Type", contentType))
        }
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let tokenOK = !name.isEmpty && name.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
            guard tokenOK, isHeaderText(value) else {
                throw S3Error.invalidConfiguration(
                    "metadata '\(name)' cannot be sent: names are letters, digits, '-' and '_', values printable ASCII")
            }
            headers.append(("x-amz-meta-" + name.lowercased(), value))
        }
        return headers
    }

    private static func isHeaderText(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            && text.trimmingCharacters(in: .whitespaces) == text && !text.contains("  ")
    }

    static func xmlEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private func xml(_ body: Data, expecting rootName: String, request: S3Request) throws -> S3XMLElement {
        guard let root = S3XMLElement.parse(body), root.name == rootName else {
            throw S3Error.invalidResponse("\(request.summary) answered without a \(rootName) document")
        }
        return root
    }
}
