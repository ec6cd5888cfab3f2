/// One thing `shoebox verify` found wrong (or worth knowing) in a library.
public struct VerifyProblem: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A catalog row whose file is gone.
        case missing
        /// The file's size differs from the recorded size.
        case sizeMismatch = "size-mismatch"
        /// The file's SHA-256 differs from the recorded one (bit rot, edits).
        case hashMismatch = "hash-mismatch"
        /// Capture time, make, model or GPS in the file differ from what was recorded.
        case metadataMismatch = "metadata-mismatch"
        /// An original lost its read-only mode.
        case writable
        /// The file exists but cannot be read, or is not a regular file.
        case unreadable
        /// A file under originals/ the catalog does not know.
        case unknownFile = "unknown-file"
        /// A catalog path that is not a plain path under originals/ (`..`, absolute): not followed.
        case badPath = "bad-path"
        /// A catalog original without an entry in journal.jsonl (reindex could not restore it fully).
        case notJournaled = "not-journaled"
        /// journal.jsonl cannot be read or has a damaged line.
        case journalDamaged = "journal-damaged"
        case thumbnailMissing = "thumbnail-missing"
        /// A thumbnail older than its original.
        case thumbnailStale = "thumbnail-stale"
        /// A thumbnail whose size is not the one written (cut short, overwritten).
        case thumbnailDamaged = "thumbnail-damaged"
        /// Notice: a temp file left by an interrupted run; the next writer removes it.
        case leftoverTemp = "leftover-temp"
        /// Notice: an original recorded by an interrupted run whose file is still staged
        /// in .tmp/; the next writer moves it into place.
        case pendingPublish = "pending-publish"
        /// Notice: with a shared catalog, an original a writer put in place at a path it had
        /// reserved, then stopped before recording; the next writer removes it.
        case abandonedPublish = "abandoned-publish"
        /// Notice (`verify --repair`): an original found missing or damaged, put back with its
        /// recorded bytes (or found intact again).
        case repaired
    }

    public enum Severity: String, Sendable, Codable {
        /// Something is wrong: verify exits 1.
        case problem
        /// Expected after an interrupted run and repaired by the next one: reported, exit status unaffected.
        case notice
    }

    public var kind: Kind
    /// Path relative to the library root.
    public var path: String
    public var sha256: String?
    public var detail: String

    public init(kind: Kind, path: String, sha256: String? = nil, detail: String) {
        self.kind = kind
        self.path = path
        self.sha256 = sha256
        self.detail = detail
    }

    public var severity: Severity {
        switch kind {
        case .leftoverTemp, .pendingPublish, .abandonedPublish, .repaired: return .notice
        default: return .problem
        }
    }

    /// The line printed for it: `KIND PATH: DETAIL` (notices prefixed `notice:`).
    public var line: String {
        (severity == .notice ? "notice: " : "") + "\(kind.rawValue) \(path): \(detail)"
    }

    private enum CodingKeys: String, CodingKey { case kind, severity, path, sha256, detail }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        path = try container.decode(String.self, forKey: .path)
        sha256 = try container.decodeIfPresent(String.self, forKey: .sha256)
        detail = try container.decode(String.self, forKey: .detail)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(severity, forKey: .severity)
        try container.encode(path, forKey: .path)
        try container.encodeIfPresent(sha256, forKey: .sha256)
        try container.encode(detail, forKey: .detail)
    }
}
