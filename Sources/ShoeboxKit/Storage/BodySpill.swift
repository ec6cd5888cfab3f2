/// Where a body goes past the first bytes its staging file keeps: a remote store streams
/// the rest straight into an upload (`S3StreamedUpload`), so a large body never lands on
/// the local disk whole. The staging file keeps the head (`headLimit` bytes), which is
/// all the checks and the metadata reader read; the body writer hands every byte past it
/// here, in order, on one thread at a time.
public protocol BodySpill: AnyObject, Sendable {
    /// Bytes kept in the staging file; those past it are `append`ed here.
    var headLimit: Int64 { get }
    /// The next bytes past the head (the first call once the head is complete on disk).
    /// Throws when they cannot be sent; the body is then failed and `abort` follows.
    func append(_ bytes: UnsafeRawBufferPointer) throws
    /// Whether any byte went past the head: the content is then the head plus the upload.
    var isSpilled: Bool { get }
    /// Abandons the upload, leaving nothing behind; no error when there is none.
    func abort()
}
