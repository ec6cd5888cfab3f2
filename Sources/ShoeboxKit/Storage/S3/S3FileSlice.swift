/// Bytes `offset ..< offset + length` of the file at `path`, which must hash to `sha256`
/// (SHA-256, lower-case hex): an upload body streamed from the file instead of held in memory.
///
/// The hash is the request's `x-amz-content-sha256` (the caller has read the bytes once to
/// make it). While the body is streamed the bytes sent are hashed again: a file that ends
/// early fails with `S3StoreError.shortRead`, and one whose bytes are no longer those hashed
/// fails with `S3StoreError.contentChanged` before its last bytes are handed to libcurl, so
/// the server never receives the whole body (and a server that checks
/// `x-amz-content-sha256`, as S3 and OpenStack Swift do, refuses it anyway).
public struct S3FileSlice: Sendable, Equatable {
    public var path: String
    public var offset: Int64
    public var length: Int64
    public var sha256: String

    public init(path: String, offset: Int64 = 0, length: Int64, sha256: String) {
        self.path = path
        self.offset = offset
        self.length = length
        self.sha256 = sha256
    }
}
