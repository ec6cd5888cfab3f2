/// What CopyObject does with the source's metadata and content type.
public enum S3MetadataDirective: String, Sendable {
    /// Keep the source's (the metadata and content type given are ignored).
    case copy = "COPY"
    /// Use the metadata and content type given.
    case replace = "REPLACE"
}
