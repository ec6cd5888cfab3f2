/// Where the bytes of originals live: a local folder by default
/// (`LocalOriginalStore`), or an S3-compatible object store (`S3OriginalStore`).
/// Paths are relative to the library ("originals/YYYY/MM/DD/NAME.EXT"); how a path
/// becomes a file or an object key is the store's business alone.
///
/// Writing goes through the store's `UploadStaging` side: a download streams into a
/// staging file (the sink); `stage` makes it the content with its hash, durable after
/// `syncStaged`; `publish` puts it at its final, read-only path. Anything staged but
/// never published is found by `pendingStaged` and finished or removed by
/// `LibraryRecovery`.
public protocol OriginalStore: UploadStaging {
    /// Marks a complete staging file as the content with hash `sha256`;
    /// durable after the next `syncStaged`.
    func stage(_ file: StagingFile, sha256: String) throws
    /// Makes everything staged so far durable (one sync for a whole batch).
    func syncStaged() throws
    /// Puts the staged content `sha256` at `path`, read-only; never replaces other bytes
    /// already there. `.alreadyPresent` when the same content was there already (an
    /// earlier publish interrupted before it was recorded).
    @discardableResult
    func publish(sha256: String, to path: String) throws -> PublishOutcome
    /// Drops staged content that will not be published.
    func discardStaged(sha256: String)
    /// Hashes of content staged but not yet published (left by a crash).
    func pendingStaged() throws -> [String]
    /// Whether staged content still hashes to `sha256`: after a power loss a rename can
    /// be on disk without the bytes it named.
    func stagedContentMatches(sha256: String) -> Bool
    /// Removes partial downloads left by a crash.
    func removePartialDownloads() throws -> Int

    /// The SHA-256 the store keeps beside the original at `path` (object metadata), nil when
    /// it keeps none (a local folder) or there is no original there.
    func recordedSHA256(path: String) throws -> String?
    /// Whether the original at `path` holds the content `sha256` (the hash the store keeps
    /// beside it, else its bytes hashed).
    func contentMatches(path: String, sha256: String) throws -> Bool
    /// Whether an original is at `path`.
    func exists(path: String) throws -> Bool
    /// The size and time of the original at `path` (and the hash the store keeps beside it,
    /// if any), or nil when there is none.
    func info(path: String) throws -> StoredOriginal?
    /// Up to `count` bytes of the original at `path` from `offset` (fewer at its end):
    /// metadata needs only the first bytes, so remote stores read a range.
    func read(path: String, offset: Int64, count: Int) throws -> [UInt8]
    /// The whole original at `path`, handed to `body` in pieces, in order (streamed:
    /// memory stays bounded whatever its size).
    func stream(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws
    /// Runs `body` with the path of a local file holding the original at `path` (the file
    /// itself for a local store; a temporary copy, removed afterwards, for a remote one).
    func withLocalFile<T>(path: String, _ body: (String) throws -> T) throws -> T
    /// Every original under `folder` (a path relative to the library, "originals"), in no
    /// particular order, handed to `each` page by page: a listing is never held whole.
    func list(under folder: String, _ each: (StoredOriginal) throws -> Void) throws
    /// Removes the original at `path` (prune, repair); no error when it is already gone.
    func remove(path: String) throws
    /// Moves the original at `path` to `aside` (a path relative to the library, outside
    /// originals/: `DamagedCopy.path`), never replacing anything there: a damaged original
    /// is kept, not deleted, when its right bytes are put back (`OriginalPutBack`).
    func setAside(path: String, to aside: String) throws
    /// Whether `exists` is a local call (a file's stat) rather than a request: a new
    /// original's name is then also checked against files the catalog does not know. A
    /// remote store's prefix belongs to one library (`StoreBinding`), so the catalog's paths
    /// and reservations are all there is; an object in the way anyway is found by `publish`,
    /// which never replaces it.
    var existenceIsCheap: Bool { get }
    /// How many `publish` calls may run at once (a remote store's uploads wait on the network).
    var publishConcurrency: Int { get }
    /// Where `path` is, for people: an absolute file path, or s3://BUCKET/KEY.
    func location(of path: String) -> String
    /// Where the store is, for people: the library folder, or s3://BUCKET/PREFIX.
    var displayName: String { get }
}

/// The sink side of a store, all the transfer engine knows of storage: a body is
/// written into a new staging file, which is handed on when complete or dropped.
public protocol UploadStaging: AnyObject, Sendable {
    /// A new, empty staging file for a download in progress.
    func makeStagingFile() throws -> StagingFile
    /// Drops a staging file (failed download, duplicate content).
    func discard(_ file: StagingFile)
}

extension OriginalStore {
    /// Whether `original` is in place with its recorded size and content (`contentMatches`: a
    /// local file hashed, an object judged by the hash it carries).
    public func holdsIntact(_ original: OriginalRecord) throws -> Bool {
        guard let present = try info(path: original.path), present.bytes == original.bytes else { return false }
        return try contentMatches(path: original.path, sha256: original.sha256)
    }

    /// The size of the original at `path`, or nil when there is none.
    public func size(path: String) throws -> Int64? { try info(path: path)?.bytes }

    /// Every file under `folder` (a path relative to the library, "thumbnails") with its size,
    /// by path: one listing (a remote store's thumbnails, which verify, reindex, thumbs and the
    /// gallery judge by the listing rather than a request each).
    public func sizes(under folder: String) throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        try list(under: folder) { found[$0.path] = $0.bytes }
        return found
    }
}

/// What `publish` did.
public enum PublishOutcome: Sendable, Equatable {
    case created
    case alreadyPresent
}

/// One original as a store lists it.
public struct StoredOriginal: Sendable, Equatable {
    /// Relative to the library: "originals/2024/05/01/a.jpg".
    public var path: String
    public var bytes: Int64
    /// Seconds since 1970 of its last change.
    public var modified: Double
    /// The SHA-256 the store keeps beside the bytes (object metadata), when it keeps one.
    public var sha256: String?

    public init(path: String, bytes: Int64, modified: Double, sha256: String? = nil) {
        self.path = path
        self.bytes = bytes
        self.modified = modified
        self.sha256 = sha256
    }
}
