import Foundation

/// Originals in an S3-compatible bucket: `s3://BUCKET/PREFIX/originals/...`, keys
/// mirroring the local layout, each object carrying its SHA-256 (`x-amz-meta-sha256`)
/// and its Content-Type.
///
/// Bodies up to `streamingThreshold` are staged exactly as for a local library, in
/// `LIBRARY/.tmp/` (`LocalStagingArea`): checked, hashed and made durable there, journaled
/// and committed; `publish` then uploads the staged file (one PUT up to
/// `singleUploadLimit`, a multipart upload above it, aborted on failure) and drops it.
///
/// A larger body streams from the network into a multipart upload at a staging key,
/// `PREFIX/.tmp/<random>` (`S3StreamedUpload`): only its first `streamingThreshold` bytes
/// touch the local disk, memory holds one part. Staging it completes the upload (once what
/// went up hashes to the body's SHA-256) and notes the key locally (`<sha256>.remote`);
/// `publish` copies the object to the original's key with its metadata (server side) and
/// deletes the staged one. A body refused by any check, or a duplicate, aborts its upload.
///
/// So a body that fails a check never becomes an object, and a crash at any moment leaves
/// either no object or a complete one whose row recovery finishes: staged content whose
/// row was committed is uploaded (or copied) by the next writer; incomplete uploads and
/// staged objects nobody will publish are removed (`removePartialDownloads`).
public final class S3OriginalStore: LocallyStagedStore, @unchecked Sendable {
    public let bucket: S3Location
    public let client: S3Client
    public let staging: LocalStagingArea

    /// Bodies up to this size go up in one PUT, larger ones in parts; either way streamed from
    /// the staged file. Settable for tests.
    public var singleUploadLimit: Int64 = 8 << 20
    /// The smallest part of a multipart upload (S3 needs at least 5 MiB but for the last).
    /// Settable for tests.
    public var minimumPartSize: Int64 = 8 << 20
    /// Bodies larger than this stream into a multipart upload as they arrive (`S3StreamedUpload`);
    /// at most this many bytes of one are on the local disk. At least 5 MiB (the head is the
    /// upload's first part); nil streams nothing (every body staged locally whole). Settable for tests.
    public var streamingThreshold: Int64? = 8 << 20 {
        didSet { if let limit = streamingThreshold { precondition(limit >= Int64(S3MultipartUpload.minimumPartSize)) } }
    }
    /// The parts of a streamed upload after its head (8 MiB, growing; see `S3StreamedUpload`).
    public var streamingPartSize = S3MultipartUpload.defaultPartSize
    /// Staging keys, beside "originals" under the prefix, as the local `.tmp` folder is.
    static let stagingFolder = ".tmp"
    /// Parts of one upload at most: AWS takes 10,000, OpenStack Swift 1,000 by default.
    static let maximumParts: Int64 = 1_000
    /// Objects listed per request (S3's maximum: 1000). Settable for tests.
    public var listPage = 1000
    /// Whether other writers upload under the prefix meanwhile (a shared catalog): then only
    /// incomplete uploads older than `abandonedUploadAge` are taken for a killed writer's.
    public let sharedPrefix: Bool
    /// Seconds after which a shared prefix's incomplete multipart upload counts as abandoned:
    /// no upload of one part of at most 64 MiB lasts that long. Settable for tests.
    public var abandonedUploadAge: TimeInterval = 3600

    /// `creating: false` for readers: no local folder is made and the bucket is not checked.
    /// `staging`: where downloads are staged, LIBRARY/.tmp unless the writer has its own folder
    /// (`WriterStagingFolder`); `sharedPrefix`: other writers upload under the prefix at the same time.
    public init(location: S3Location, configuration: S3Configuration, layout: LibraryLayout, creating: Bool,
                staging stagingFolder: String? = nil, sharedPrefix: Bool = false) throws {
        bucket = location
        client = S3Client(configuration: configuration)
        if creating {
            try LocalOriginalStore.makeDirectory(layout.root, library: layout.root)
        }
        staging = try LocalStagingArea(folder: stagingFolder ?? layout.staging, library: layout.root, creating: creating)
        self.sharedPrefix = sharedPrefix
        // A writer learns at once of a missing bucket or wrong credentials, before any download.
        if creating { try client.headBucket(location.bucket) }
    }

    public var displayName: String { bucket.description }
    /// Uploads at once when a batch is published.
    public var publishConcurrency: Int { 8 }
    /// A HEAD each: names are checked against the catalog only (see `OriginalStore`).
    public var existenceIsCheap: Bool { false }

    /// Partial downloads in `.tmp/`, and what `remoteLeftovers` finds in the bucket.
    public func removePartialDownloads() throws -> Int {
        var removed = try staging.removePartialDownloads()
        for leftover in try remoteLeftovers() {
            if let uploadID = leftover.uploadID {
                try client.abortMultipartUpload(bucket: bucket.bucket, key: leftover.key, uploadID: uploadID)
            } else {
                try client.deleteObject(bucket: bucket.bucket, key: leftover.key)
            }
            removed += 1
        }
        return removed
    }

    /// Something an interrupted run left in the bucket: an incomplete multipart upload (with its
    /// id), or a staged object (`PREFIX/.tmp/`) no staged download refers to.
    public struct RemoteLeftover: Sendable, Equatable {
        public var key: String
        public var uploadID: String?
    }

    /// Multipart uploads a killed publish or download left incomplete under the prefix, and
    /// staged objects no local note refers to. All of them when this is the library's one
    /// writer; with a shared catalog, only those idle for `abandonedUploadAge` (the others may
    /// be another writer's, in progress: a streamed download sends a part every 8 MiB or so).
    public func remoteLeftovers() throws -> [RemoteLeftover] {
        var found: [RemoteLeftover] = []
        let cutoff = Date().addingTimeInterval(-abandonedUploadAge)
        let stagingPrefix = bucket.key(for: Self.stagingFolder) + "/"
        for prefix in [bucket.key(for: LibraryLayout.originalsFolder) + "/", stagingPrefix] {
            for upload in try client.listAllMultipartUploads(bucket: bucket.bucket, prefix: prefix) {
                if sharedPrefix, (upload.initiated ?? Date()) > cutoff { continue }
                if sharedPrefix, prefix == stagingPrefix,
                   let last = try client.lastPartTime(bucket: bucket.bucket, key: upload.key, uploadID: upload.uploadID), last > cutoff { continue }
                found.append(RemoteLeftover(key: upload.key, uploadID: upload.uploadID))
            }
        }
        let referenced = Set(try staging.stagedReferences().map(\.reference))
        try eachObject(under: stagingPrefix) { object in
            guard !referenced.contains(object.key) else { return }
            if sharedPrefix, (object.lastModified ?? Date()) > cutoff { return }
            found.append(RemoteLeftover(key: object.key, uploadID: nil))
        }
        return found
    }

    // MARK: Staging (a large body streams into an upload; see the type's notes)

    public func makeStagingFile() throws -> StagingFile {
        let file = try staging.makeStagingFile()
        guard let threshold = streamingThreshold else { return file }
        let key = bucket.key(for: Self.stagingFolder + "/" + UUID().uuidString.lowercased())
        let upload = S3StreamedUpload(client: client, bucket: bucket.bucket, key: key, headPath: file.path,
                                      headLimit: threshold, partSize: streamingPartSize)
        return StagingFile(path: file.path, descriptor: file.descriptor, spill: upload)
    }

    public func discard(_ file: StagingFile) {
        file.spill?.abort()
        staging.discard(file)
    }

    public func stage(_ file: StagingFile, sha256: String) throws {
        guard let upload = file.spill as? S3StreamedUpload, upload.isSpilled else {
            return try staging.stage(file, sha256: sha256)
        }
        defer { staging.discard(file) }  // the head: part 1 of the object now
        try upload.complete(sha256: sha256)
        do {
            try staging.stageReference(sha256: sha256, reference: upload.key)
        } catch {
            try? client.deleteObject(bucket: bucket.bucket, key: upload.key)
            throw error
        }
    }

    public func discardStaged(sha256: String) {
        if let key = staging.stagedReference(sha256) { try? client.deleteObject(bucket: bucket.bucket, key: key) }
        staging.discardStaged(sha256: sha256)
    }

    public func stagedContentMatches(sha256: String) -> Bool {
        guard let key = staging.stagedReference(sha256) else { return staging.stagedContentMatches(sha256: sha256) }
        let hasher = SHA256Hasher()
        do {
            try client.getObject(bucket: bucket.bucket, key: key, range: nil) { hasher.update($0) }
        } catch {
            return false
        }
        return hasher.finalizeHex() == sha256
    }

    @discardableResult
    public func publish(sha256: String, to path: String) throws -> PublishOutcome {
        let key = bucket.key(for: path)
        if let existing = try head(key) {
            // The same content already there: an earlier publish that was not recorded as done.
            guard existing.metadata["sha256"] == sha256 else { throw S3StoreError.occupied(location: location(of: path)) }
            discardStaged(sha256: sha256)
            return .alreadyPresent
        }
        let contentType = ImageFormat.mimeType(forPath: path)
        if let staged = staging.stagedReference(sha256) {
            // Streamed into the bucket already (and checked against `sha256` then): copied server side.
            let size = try client.headObject(bucket: bucket.bucket, key: staged).size
            try copy(staged, size: size, to: key, contentType: contentType, metadata: ["sha256": sha256], sha256: sha256)
            discardStaged(sha256: sha256)
            return .created
        }
        let file = staging.stagedPath(sha256)
        try upload(file: file, key: key, contentType: contentType, sha256: sha256)
        staging.discardStaged(sha256: sha256)
        return .created
    }

    /// Copied with its metadata (`copy`), then deleted: a copy that fails leaves the original
    /// where it was.
    public func setAside(path: String, to aside: String) throws {
        let key = bucket.key(for: path), asideKey = bucket.key(for: aside)
        guard try head(asideKey) == nil else { throw S3StoreError.occupied(location: location(of: aside)) }
        guard let object = try head(key) else { return }
        try copy(key, size: object.size, to: asideKey, contentType: object.contentType, metadata: object.metadata, sha256: nil)
        try client.deleteObject(bucket: bucket.bucket, key: key)
    }

    /// Uploads the file at `file` as `key`: one PUT when small, else a multipart upload
    /// (aborted when any step fails). The file is read twice, a small buffer at a time: once
    /// to hash it (the whole must be the content `sha256` names, so a staged file torn by a
    /// power loss is never uploaded as that content; each part's hash is kept), then to stream
    /// each request's body from it, with that hash as its `x-amz-content-sha256`. The
    /// streaming pass hashes what it sends again and refuses a body whose bytes are no longer
    /// those hashed (`S3FileSlice`): so what goes up is the content `sha256` names.
    private func upload(file: String, key: String, contentType: String, sha256: String) throws {
        let metadata = ["sha256": sha256]
        let (bodies, multipart) = try hashForUpload(file: file, sha256: sha256)
        try afterHashing?(file)
        guard multipart else {
            try client.putObject(bucket: bucket.bucket, key: key, file: bodies[0], contentType: contentType, metadata: metadata)
            return
        }
        let uploadID = try client.createMultipartUpload(bucket: bucket.bucket, key: key, contentType: contentType, metadata: metadata)
        do {
            var parts: [S3UploadedPart] = []
            for part in bodies {
                do {
                    parts.append(try client.uploadPart(bucket: bucket.bucket, key: key, uploadID: uploadID,
                                                       partNumber: parts.count + 1, file: part))
                } catch S3StoreError.contentChanged {
                    // The part's bytes are not those hashed: nor is the whole the content `sha256` names.
                    throw S3StoreError.contentChanged(path: file, sha256: sha256)
                }
            }
            do {
                _ = try client.completeMultipartUpload(bucket: bucket.bucket, key: key, uploadID: uploadID, parts: parts)
            } catch S3Error.noSuchUpload {
                // A completion retried after its answer was lost: the first one made the object.
                guard try head(key)?.metadata["sha256"] == sha256 else { throw S3Error.noSuchUpload(uploadID: uploadID) }
            }
        } catch {
            try? client.abortMultipartUpload(bucket: bucket.bucket, key: key, uploadID: uploadID)
            throw error
        }
    }

    /// Objects up to this size are copied in one request (CopyObject's limit: 5 GiB); larger
    /// ones are read back and uploaded again in parts. Settable for tests.
    public var singleCopyLimit: Int64 = 5 << 30

    /// Copies the object `source` (of `size` bytes) to `key` with `metadata`: server side in
    /// one request, or above `singleCopyLimit` streamed through this process into a multipart
    /// upload (memory: one part), completed only when what went through hashes to `sha256`
    /// (when given). (UploadPartCopy would spare the round trip, but libcurl 7.88 signs its two
    /// x-amz-copy-source headers in the wrong order, and Swift refuses the signature.)
    private func copy(_ source: String, size: Int64, to key: String, contentType: String?, metadata: [String: String], sha256: String?) throws {
        guard size > singleCopyLimit else {
            try client.copyObject(sourceBucket: bucket.bucket, sourceKey: source, bucket: bucket.bucket, key: key,
                                  metadataDirective: .replace, contentType: contentType, metadata: metadata)
            return
        }
        let partSize = Int(max(minimumPartSize, (size + Self.maximumParts - 1) / Self.maximumParts))
        let upload = try S3MultipartUpload(client: client, bucket: bucket.bucket, key: key, partSize: partSize,
                                           contentType: contentType, metadata: metadata)
        let hasher = SHA256Hasher()
        do {
            try client.getObject(bucket: bucket.bucket, key: source, range: nil) { bytes in
                hasher.update(bytes)
                try upload.append(bytes)
            }
            if let sha256, hasher.finalizeHex() != sha256 { throw S3StoreError.contentChanged(path: location(ofKey: source), sha256: sha256) }
            try upload.complete()
        } catch {
            try? upload.abort()
            throw error
        }
    }

    private func location(ofKey key: String) -> String { "s3://\(bucket.bucket)/\(key)" }

    /// Called with the staged file's path once it has been hashed for an upload, before any
    /// of it is sent. For tests: a file that changes between the two reads.
    public var afterHashing: ((String) throws -> Void)?

    /// Bytes read at a time when a staged file is hashed before its upload.
    static let hashBufferSize = 256 << 10

    /// The first read of a staged file before its upload: the bodies it goes up as (the whole
    /// file for one PUT, else its parts), each with its SHA-256. Throws unless the file holds
    /// its size in bytes and they hash to `sha256`.
    private func hashForUpload(file: String, sha256: String) throws -> (bodies: [S3FileSlice], multipart: Bool) {
        let reader = try FileReader(path: file)
        defer { reader.close() }
        let size = reader.size
        let single = size <= singleUploadLimit
        let partSize = single ? size : max(minimumPartSize, (size + Self.maximumParts - 1) / Self.maximumParts)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.hashBufferSize, alignment: 16)
        defer { buffer.deallocate() }
        let whole = SHA256Hasher()
        var parts: [S3FileSlice] = []
        var read: Int64 = 0
        while read < size {
            let partStart = read, partEnd = min(read + partSize, size)
            let part = single ? nil : SHA256Hasher()
            while read < partEnd {
                // A file that ends before its size must not go up short under the whole content's hash.
                let count = try reader.read(into: UnsafeMutableRawBufferPointer(
                    rebasing: buffer[0..<Int(min(Int64(buffer.count), partEnd - read))]))
                guard count > 0 else { throw S3StoreError.shortRead(path: file) }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                whole.update(bytes)
                part?.update(bytes)
                read += Int64(count)
            }
            if let part {
                parts.append(S3FileSlice(path: file, offset: partStart, length: partEnd - partStart, sha256: part.finalizeHex()))
            }
        }
        guard whole.finalizeHex() == sha256 else { throw S3StoreError.contentChanged(path: file, sha256: sha256) }
        return single ? ([S3FileSlice(path: file, length: size, sha256: sha256)], false) : (parts, true)
    }

    /// The object's head, or nil when there is none.
    private func head(_ key: String) throws -> S3ObjectInfo? {
        do {
            return try client.headObject(bucket: bucket.bucket, key: key)
        } catch S3Error.noSuchKey {
            return nil
        } catch S3Error.http(let status, _, _, _) where status == 404 {
            return nil
        }
    }

    public func exists(path: String) throws -> Bool {
        try head(bucket.key(for: path)) != nil
    }

    public func info(path: String) throws -> StoredOriginal? {
        try head(bucket.key(for: path)).map {
            StoredOriginal(path: path, bytes: $0.size, modified: $0.lastModified?.timeIntervalSince1970 ?? 0, sha256: $0.metadata["sha256"])
        }
    }

    /// The SHA-256 the object carries (`x-amz-meta-sha256`), nil when it has none or is missing.
    public func recordedSHA256(path: String) throws -> String? {
        try head(bucket.key(for: path))?.metadata["sha256"]
    }

    public func contentMatches(path: String, sha256: String) throws -> Bool {
        guard let info = try head(bucket.key(for: path)) else { return false }
        if let recorded = info.metadata["sha256"] { return recorded == sha256 }
        let hasher = SHA256Hasher()
        try stream(path: path) { hasher.update($0) }
        return hasher.finalizeHex() == sha256
    }

    public func read(path: String, offset: Int64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        do {
            return [UInt8](try client.getObject(bucket: bucket.bucket, key: bucket.key(for: path),
                                                range: offset...(offset + Int64(count) - 1)))
        } catch S3Error.http(let status, _, _, _) where status == 416 {
            return []  // the range starts past the end
        }
    }

    public func stream(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try client.getObject(bucket: bucket.bucket, key: bucket.key(for: path), range: nil, receive: body)
    }

    public func withLocalFile<T>(path: String, _ body: (String) throws -> T) throws -> T {
        var template = Array((NSTemporaryDirectory() + "/shoebox-original-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw POSIXFileError(path: NSTemporaryDirectory(), operation: "create a temporary file in", code: errno) }
        let local = String(cString: template)
        defer { unlink(local) }
        do {
            defer { close(fd) }
            try stream(path: path) { bytes in
                var done = 0
                while done < bytes.count {
                    let written = write(fd, bytes.baseAddress! + done, bytes.count - done)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { throw POSIXFileError(path: local, operation: "write", code: errno) }
                    done += written
                }
            }
        }
        return try body(local)
    }

    public func list(under folder: String, _ each: (StoredOriginal) throws -> Void) throws {
        let strip = bucket.listingPrefix
        try eachObject(under: bucket.key(for: folder) + "/") { object in
            guard object.key.hasPrefix(strip) else { return }
            try each(StoredOriginal(path: String(object.key.dropFirst(strip.count)), bytes: object.size,
                                    modified: object.lastModified?.timeIntervalSince1970 ?? 0))
        }
    }

    /// Every object whose key starts with `prefix`, page by page (`listPage` at a time); a
    /// server that gives the same continuation token twice is an error, not an endless loop.
    private func eachObject(under prefix: String, _ each: (S3ObjectSummary) throws -> Void) throws {
        var token: String?
        repeat {
            let page = try client.listObjectsV2(bucket: bucket.bucket, prefix: prefix, continuationToken: token, maxKeys: listPage)
            for object in page.objects { try each(object) }
            if let next = page.nextContinuationToken, next == token {
                throw S3Error.invalidResponse("listing \(prefix) gave the same continuation token twice")
            }
            token = page.nextContinuationToken
        } while token != nil
    }

    /// Puts a file the library makes from its originals (a thumbnail, a gallery page) at `path`,
    /// replacing what is there: one PUT streamed from the file, its SHA-256 sent as
    /// `x-amz-content-sha256` (a file changed while it goes up is refused) and kept as
    /// `x-amz-meta-sha256`. Such files are at most a few MiB, far below a PUT's 5 GiB.
    public func putDerived(file: String, at path: String, contentType: String) throws {
        let (sha256, bytes) = try SHA256Hasher.hashFile(atPath: file)
        try client.putObject(bucket: bucket.bucket, key: bucket.key(for: path),
                             file: S3FileSlice(path: file, length: bytes, sha256: sha256),
                             contentType: contentType, metadata: ["sha256": sha256])
    }

    public func remove(path: String) throws {
        try client.deleteObject(bucket: bucket.bucket, key: bucket.key(for: path))
    }

    public func location(of path: String) -> String {
        "s3://\(bucket.bucket)/\(bucket.key(for: path))"
    }

    /// Reads a local file in order, a buffer at a time.
    private final class FileReader {
        let path: String
        let size: Int64
        private let fd: Int32

        init(path: String) throws {
            self.path = path
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw POSIXFileError(path: path, operation: "open", code: errno) }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let code = errno
                Glibc.close(fd)
                throw POSIXFileError(path: path, operation: "read", code: code)
            }
            size = Int64(info.st_size)
        }

        /// Reads up to `buffer.count` bytes; 0 at the end of the file.
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            while true {
                let got = Glibc.read(fd, buffer.baseAddress!, buffer.count)
                if got < 0 && errno == EINTR { continue }
                guard got >= 0 else { throw POSIXFileError(path: path, operation: "read", code: errno) }
                return got
            }
        }

        func close() { Glibc.close(fd) }
    }
}
