/// Why an object store cannot take or give an original (beyond what `S3Error` says of a request).
public enum S3StoreError: Error, CustomStringConvertible, Equatable {
    /// Another object, with other bytes, is where an original goes: never replaced.
    case occupied(location: String)
    /// A staged file ended before its size while it was uploaded.
    case shortRead(path: String)
    /// A staged file no longer hashes to the content it was staged as.
    case contentChanged(path: String, sha256: String)

    public var description: String {
        switch self {
        case .occupied(let location):
            return "\(location) already holds other bytes (no or another x-amz-meta-sha256); shoebox never replaces an object: "
                + "move it away in the bucket, then run the same command again (the original stays recorded and staged until then)"
        case .shortRead(let path):
            return "\(path) ended before its size while it was uploaded; the next run uploads it again"
        case .contentChanged(let path, let sha256):
            return "\(path) no longer holds the content \(sha256) it was staged as (damaged since); it was not uploaded"
        }
    }
}
