import Foundation

/// A body streamed from the network into a multipart upload (`BodySpill`), at a staging key
/// of its own (`PREFIX/.tmp/<random>`), never at an original's key: the name and the SHA-256
/// are known only once the body is complete and checked.
///
/// The first `headLimit` bytes stay in the local staging file (the checks and the metadata
/// reader read them there) and go up from it as part 1 once the body passes them; the rest is
/// held one part at a time, each sent as soon as it is full. So the local disk holds at most the
/// head and memory one part, whatever the body's size. Parts are 8 MiB, doubling every 250
/// parts up to 64 MiB (OpenStack Swift takes 1,000 parts: some 30 GB in all).
///
/// `complete(sha256:)` sends the last part, checks that what went up hashes to `sha256` and
/// makes the staged object; `abort()` (a body that failed a check, a duplicate, a failed
/// transfer) leaves nothing behind. Crash leftovers are found under the staging prefix by
/// `S3OriginalStore.removePartialDownloads`.
public final class S3StreamedUpload: BodySpill, @unchecked Sendable {
    public let headLimit: Int64
    public let bucket: String
    /// The staging key the upload makes.
    public let key: String
    private let client: S3Client
    private let headPath: String
    private let basePartSize: Int
    private let lock = NSLock()
    private var uploadID: String?
    private var parts: [S3UploadedPart] = []
    /// The part being filled.
    private var buffer = Data()
    /// Of every byte sent (the head read back from the file included).
    private let hasher = SHA256Hasher()
    private var sentBytes: Int64 = 0
    private var aborted = false
    private var completed = false

    /// Parts a Swift upload takes at most.
    static let maximumParts = 1_000

    /// `headLimit` is at least S3's smallest part (5 MiB): the head is part 1.
    public init(client: S3Client, bucket: String, key: String, headPath: String, headLimit: Int64,
                partSize: Int = S3MultipartUpload.defaultPartSize) {
        precondition(headLimit >= Int64(S3MultipartUpload.minimumPartSize) && partSize >= S3MultipartUpload.minimumPartSize)
        self.client = client
        self.bucket = bucket
        self.key = key
        self.headPath = headPath
        self.headLimit = headLimit
        self.basePartSize = partSize
    }

    public var isSpilled: Bool { lock.withLock { uploadID != nil } }

    /// Bytes sent or held so far (head included).
    public var length: Int64 { lock.withLock { sentBytes + Int64(buffer.count) } }

    /// The size of part `number` (1-based) after the head: doubling every 250 parts, at most 8×.
    func partSize(number: Int) -> Int {
        basePartSize << min(3, (number - 1) / 250)
    }

    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        try lock.withLock {
            guard !aborted, !completed else { throw S3StoreError.uploadFinished(location: "s3://\(bucket)/\(key)") }
            do {
                if uploadID == nil { try begin() }
                var rest = bytes
                while !rest.isEmpty {
                    let size = partSize(number: parts.count + 1)
                    if buffer.isEmpty { buffer.reserveCapacity(size) }
                    let take = min(size - buffer.count, rest.count)
                    buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[0..<take]))
                    rest = UnsafeRawBufferPointer(rebasing: rest[take...])
                    if buffer.count == size { try sendBuffer() }
                }
            } catch {
                abortLocked()
                throw error
            }
        }
    }

    /// Sends the last part and makes the staged object, once what went up hashes to `sha256`
    /// (else the upload is aborted and `S3StoreError.contentChanged` thrown).
    public func complete(sha256: String) throws {
        try lock.withLock {
            guard let uploadID, !aborted, !completed else { throw S3StoreError.uploadFinished(location: "s3://\(bucket)/\(key)") }
            do {
                if !buffer.isEmpty { try sendBuffer() }
                guard hasher.finalizeHex() == sha256 else { throw S3StoreError.contentChanged(path: headPath, sha256: sha256) }
                do {
                    _ = try client.completeMultipartUpload(bucket: bucket, key: key, uploadID: uploadID, parts: parts)
                } catch S3Error.noSuchUpload {
                    // A completion retried after its answer was lost: the first one made the object.
                    guard try client.headObject(bucket: bucket, key: key).size == sentBytes else { throw S3Error.noSuchUpload(uploadID: uploadID) }
                }
                completed = true
                buffer = Data()
            } catch {
                abortLocked()
                throw error
            }
        }
    }

    public func abort() {
        lock.withLock { abortLocked() }
    }

    private func abortLocked() {
        guard !aborted, !completed else { return }
        aborted = true
        buffer = Data()
        if let uploadID { try? client.abortMultipartUpload(bucket: bucket, key: key, uploadID: uploadID) }
    }

    /// Starts the upload with the head as part 1, streamed from the staging file (read once to
    /// hash it, then sent and hashed again on the way: `S3FileSlice`), so it is never held in
    /// memory.
    private func begin() throws {
        let head = try hashHead()
        uploadID = try client.createMultipartUpload(bucket: bucket, key: key)
        parts.append(try client.uploadPart(bucket: bucket, key: key, uploadID: uploadID!, partNumber: 1,
                                           file: S3FileSlice(path: headPath, length: headLimit, sha256: head)))
        sentBytes = headLimit
    }

    /// The SHA-256 of the head, which also goes into the whole body's hash; throws unless the
    /// file holds all of it.
    private func hashHead() throws -> String {
        let fd = open(headPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXFileError(path: headPath, operation: "open", code: errno) }
        defer { close(fd) }
        let part = SHA256Hasher()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        defer { chunk.deallocate() }
        var read: Int64 = 0
        while read < headLimit {
            let got = pread(fd, chunk.baseAddress!, Int(min(Int64(chunk.count), headLimit - read)), off_t(read))
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw POSIXFileError(path: headPath, operation: "read", code: errno) }
            guard got > 0 else { throw S3StoreError.shortRead(path: headPath) }
            let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<got])
            part.update(bytes)
            hasher.update(bytes)
            read += Int64(got)
        }
        return part.finalizeHex()
    }

    private func sendBuffer() throws {
        guard parts.count < Self.maximumParts else { throw S3StoreError.tooLargeForUpload(bytes: sentBytes, parts: Self.maximumParts) }
        hasher.update(buffer)
        let part = try client.uploadPart(bucket: bucket, key: key, uploadID: uploadID!, partNumber: parts.count + 1, data: buffer)
        parts.append(part)
        sentBytes += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}
