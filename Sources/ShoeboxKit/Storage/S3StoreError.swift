/// Why an object store cannot take or give an original (beyond what `S3Error` says of a request).
public enum S3StoreError: Error, CustomStringConvertible, Equatable {
    /// Another object, with other bytes, is where an original goes: never replaced.
    case occupied(location: String)
    /// A staged file ended before its size while it was uploaded.
    case shortRead(path: String)
    /// A staged file no longer hashes to the content it was staged as.
    case contentChanged(path: String, sha256: String)
    /// A streamed body grew past what one multipart upload takes (`S3StreamedUpload`).
    case tooLargeForUpload(bytes: Int64, parts: Int)
    /// Bytes or a completion for a streamed upload that was already completed or aborted.
    case uploadFinished(location: String)

    public var description: String {
        switch self {
        case .occupied(let location):
            return "\(location) already holds other bytes (no or another x-amz-meta-sha256); shoebox never replaces an object: "
                + "move it away in the bucket, then run the same command again (the original stays recorded and staged until then)"
        case .shortRead(let path):
            return "\(path) ended before its size while it was uploaded; the next run uploads it again"
        case .contentChanged(let path, let sha256):
            return "\(path) no longer holds the content \(sha256) it was staged as (damaged since); it was not uploaded"
        case .tooLargeForUpload(let bytes, let parts):
            return "the body passed \(ByteSize.format(bytes)), more than one multipart upload of \(parts) parts takes; "
                + "it was not stored (use a smaller --max-size, or keep such files in a local library)"
        case .uploadFinished(let location):
            return "the upload to \(location) had already ended (an earlier error aborted it)"
        }
    }
}
