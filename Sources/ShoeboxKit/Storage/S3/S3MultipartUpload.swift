import Foundation

/// Uploads one object in parts from bytes handed over in order: each full part of `partSize`
/// bytes is sent as soon as it is complete, so memory stays at one part's buffer.
/// `complete()` sends the last (possibly short) part and joins them; `abort()` abandons the
/// upload. A failure while sending a part aborts the upload (nothing left behind on the
/// server) and is rethrown; the object is then not made. Not thread-safe: one thread at a time.
public final class S3MultipartUpload {
    /// S3's minimum for every part but the last.
    public static let minimumPartSize = 5 << 20
    public static let defaultPartSize = 8 << 20

    public let bucket: String
    public let key: String
    public let partSize: Int
    private let client: S3Client
    private let contentType: String?
    private let metadata: [String: String]
    private var buffer = Data()
    private var parts: [S3UploadedPart] = []
    /// Made with the first part sent (so an upload given no bytes still makes an empty object).
    public private(set) var uploadID: String?
    private var finished = false

    /// Throws `S3Error.invalidConfiguration` for a part size under 5 MiB.
    public init(client: S3Client, bucket: String, key: String, partSize: Int = S3MultipartUpload.defaultPartSize,
                contentType: String? = nil, metadata: [String: String] = [:]) throws {
        guard partSize >= Self.minimumPartSize else {
            throw S3Error.invalidConfiguration("a multipart upload's part size must be at least 5 MiB (\(partSize) bytes given)")
        }
        self.client = client
        self.bucket = bucket
        self.key = key
        self.partSize = partSize
        self.contentType = contentType
        self.metadata = metadata
        buffer.reserveCapacity(partSize)
    }

    /// The parts sent so far.
    public var uploadedParts: [S3UploadedPart] { parts }

    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !finished else { throw S3Error.invalidConfiguration("bytes appended to a finished multipart upload of \(key)") }
        var rest = bytes
        while !rest.isEmpty {
            let take = min(partSize - buffer.count, rest.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[0..<take]))
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            if buffer.count == partSize { try sendPart() }
        }
    }

    public func append(_ data: Data) throws {
        try data.withUnsafeBytes { try append($0) }
    }

    /// Sends what is left and makes the object; returns its ETag.
    @discardableResult
    public func complete() throws -> String {
        guard !finished else { throw S3Error.invalidConfiguration("multipart upload of \(key) already finished") }
        if !buffer.isEmpty || parts.isEmpty { try sendPart() }
        finished = true
        do {
            return try client.completeMultipartUpload(bucket: bucket, key: key, uploadID: uploadID!, parts: parts)
        } catch {
            abortQuietly()
            throw error
        }
    }

    /// Abandons the upload (its parts are freed on the server).
    public func abort() throws {
        finished = true
        buffer = Data()
        if let uploadID {
            try client.abortMultipartUpload(bucket: bucket, key: key, uploadID: uploadID)
        }
    }

    private func sendPart() throws {
        do {
            if uploadID == nil {
                uploadID = try client.createMultipartUpload(bucket: bucket, key: key, contentType: contentType, metadata: metadata)
            }
            let part = try client.uploadPart(bucket: bucket, key: key, uploadID: uploadID!, partNumber: parts.count + 1, data: buffer)
            parts.append(part)
            buffer.removeAll(keepingCapacity: true)
        } catch {
            finished = true
            abortQuietly()
            throw error
        }
    }

    private func abortQuietly() {
        if let uploadID { try? client.abortMultipartUpload(bucket: bucket, key: key, uploadID: uploadID) }
        buffer = Data()
    }
}
