/// One line of the library journal (`LIBRARY/journal.jsonl`): an outcome that
/// changed the library, with the full record so the catalog can be rebuilt from it.
///
/// On disk each entry is one JSON object on its own line, for example
/// `{"kind":"original","original":{"sha256":"…","path":"originals/…",…}}`;
/// field names are those of the records (`OriginalRecord`, `SourceRecord`,
/// `ThumbnailRecord`); absent optional fields are left out.
public struct JournalEntry: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// A new original was published (`original` is set).
        case originalStored = "original"
        /// A URL's row was written (`source` is set).
        case sourceRecorded = "source"
        /// A thumbnail was made or remade (`thumbnail` is set).
        case thumbnailRecorded = "thumbnail"
        /// A thumbnail was deleted (`path` is set).
        case thumbnailRemoved = "thumbnail-removed"
    }

    public var kind: Kind
    public var original: OriginalRecord?
    public var source: SourceRecord?
    public var thumbnail: ThumbnailRecord?
    /// The removed thumbnail's path, for `.thumbnailRemoved`.
    public var path: String?

    public init(
        kind: Kind, original: OriginalRecord? = nil, source: SourceRecord? = nil,
        thumbnail: ThumbnailRecord? = nil, path: String? = nil
    ) {
        self.kind = kind
        self.original = original
        self.source = source
        self.thumbnail = thumbnail
        self.path = path
    }

    public static func originalStored(_ record: OriginalRecord) -> JournalEntry {
        JournalEntry(kind: .originalStored, original: record)
    }

    public static func sourceRecorded(_ record: SourceRecord) -> JournalEntry {
        JournalEntry(kind: .sourceRecorded, source: record)
    }

    public static func thumbnailRecorded(_ record: ThumbnailRecord) -> JournalEntry {
        JournalEntry(kind: .thumbnailRecorded, thumbnail: record)
    }

    public static func thumbnailRemoved(path: String) -> JournalEntry {
        JournalEntry(kind: .thumbnailRemoved, path: path)
    }

    /// Whether the payload required by `kind` is present.
    var isComplete: Bool {
        switch kind {
        case .originalStored: return original != nil
        case .sourceRecorded: return source != nil
        case .thumbnailRecorded: return thumbnail != nil
        case .thumbnailRemoved: return path != nil
        }
    }
}
