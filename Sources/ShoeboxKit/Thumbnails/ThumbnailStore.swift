/// Where thumbnails are kept: beside the originals. A library folder keeps them in
/// LIBRARY/thumbnails/ (`LocalThumbnailStore`); an object store in PREFIX/thumbnails/ of its
/// bucket (`ObjectThumbnailStore`), so that thumbs on several machines share one set and the
/// gallery can be served from the bucket. Paths are relative to the library
/// ("thumbnails/256/2024/05/01/IMG_1.jpg.jpg", `ThumbnailLayout`).
public protocol ThumbnailStore: AnyObject, Sendable {
    /// The folder the renderer writes into: a thumbnail at `path` is made as
    /// `renderFolder/path` (in place for a local store; a scratch copy for a remote one).
    var renderFolder: String { get }
    /// Whether `stored` gives file times comparable to the originals' (a local store):
    /// otherwise a thumbnail is judged by the original's SHA-256 its catalog row names.
    var comparesTimes: Bool { get }
    /// Whether thumbnails are files of the library folder.
    var isLocal: Bool { get }
    /// Reads what is stored before a run (a remote store lists its thumbnails once).
    func prepare() throws
    /// The thumbnail stored at `path`, or nil when there is none.
    func stored(_ path: String) -> StoredThumbnail?
    /// Makes the file just rendered at `renderFolder/path` the stored thumbnail (a local store
    /// has nothing to do: the renderer renamed it into place).
    func keep(_ path: String, format: ThumbnailFormat) throws
    /// Drops what the renderer wrote at `renderFolder/path` that will not be kept.
    func discardRendered(_ path: String)
    /// Removes the thumbnail at `path`; no error when it is already gone.
    func remove(_ path: String) throws
    /// Every thumbnail stored (prune), page by page for a remote store.
    func eachStored(_ each: (String) throws -> Void) throws
    /// Where `path` is, for people: a file path or s3://BUCKET/KEY.
    func location(of path: String) -> String
    /// Ends the run: a remote store's scratch folder is removed.
    func finish()
}

/// A thumbnail as its store has it.
public struct StoredThumbnail: Sendable, Equatable {
    public var bytes: Int64
    /// Nanoseconds since 1970 of its last change; nil when not comparable with the originals'.
    public var modified: Int64?

    public init(bytes: Int64, modified: Int64?) {
        self.bytes = bytes
        self.modified = modified
    }
}
