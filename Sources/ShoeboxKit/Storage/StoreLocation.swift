/// Where a library's originals are kept (`--store`, SHOEBOX_STORE).
public enum StoreLocation: Sendable, Equatable {
    /// LIBRARY/originals/ (the embedded default).
    case libraryFolder
    /// An S3-compatible bucket: s3://BUCKET[/PREFIX].
    case objectStore(url: String)
}
