/// The library as the journal tells it: the last entry for each original, URL and
/// thumbnail wins; every content a URL gave is kept as a version.
struct JournalState {
    var originals: [String: OriginalRecord] = [:]
    var sources: [String: SourceRecord] = [:]
    /// Each (URL, content) pair the journal recorded, its first and latest fetch.
    var versions: [String: SourceVersion] = [:]
    var thumbnails: [String: ThumbnailRecord] = [:]

    init(_ entries: [JournalEntry]) {
        for entry in entries {
            switch entry.kind {
            case .originalStored:
                if let record = entry.original { originals[record.sha256] = record }
            case .sourceRecorded:
                if let record = entry.source {
                    sources[record.url] = record
                    if let version = SourceVersion(record) { SourceVersion.merge(version, into: &versions) }
                }
            case .thumbnailRecorded:
                if let record = entry.thumbnail { thumbnails[record.path] = record }
            case .thumbnailRemoved:
                if let path = entry.path { thumbnails[path] = nil }
            }
        }
    }
}
