/// The library as the journal tells it: the last entry for each original, URL and
/// thumbnail wins.
struct JournalState {
    var originals: [String: OriginalRecord] = [:]
    var sources: [String: SourceRecord] = [:]
    var thumbnails: [String: ThumbnailRecord] = [:]

    init(_ entries: [JournalEntry]) {
        for entry in entries {
            switch entry.kind {
            case .originalStored:
                if let record = entry.original { originals[record.sha256] = record }
            case .sourceRecorded:
                if let record = entry.source { sources[record.url] = record }
            case .thumbnailRecorded:
                if let record = entry.thumbnail { thumbnails[record.path] = record }
            case .thumbnailRemoved:
                if let path = entry.path { thumbnails[path] = nil }
            }
        }
    }
}
