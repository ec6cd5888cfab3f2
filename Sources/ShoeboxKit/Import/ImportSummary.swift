/// What one `shoebox import` run did, for its summary line.
public struct ImportSummary: Sendable, Equatable {
    public var stored = 0
    public var duplicates = 0
    /// Skipped by the quick check (same size and modification time as when imported), or the
    /// same bytes again from the same path.
    public var unchanged = 0
    /// Files that are not photos, by what they are ("video", "sidecar", "system file"…).
    public var notPhotos: [String: Int] = [:]
    /// Symbolic links not followed.
    public var linksSkipped = 0
    public var failed = 0
    /// Source files removed (`--move`).
    public var moved = 0
    /// Originals whose missing or damaged bytes these put back.
    public var restored = 0
    public var bytesStored: Int64 = 0
    public var elapsed = 0.0
    public var cancelled = false
    /// Why the run stopped early (a full disk, a catalog gone), if it did.
    public var stopReason: String?

    public init() {}

    public var total: Int { stored + duplicates + unchanged + notPhotos.values.reduce(0, +) + linksSkipped + failed }
    public var isClean: Bool { failed == 0 && stopReason == nil && !cancelled }

    mutating func add(_ result: FetchResult) {
        switch result.outcome {
        case .stored:
            stored += 1
            bytesStored += result.bytes ?? 0
        case .duplicate: duplicates += 1
        case .unchanged, .skipped: unchanged += 1
        case .failed, .rejected: failed += 1
        }
        if result.restoredOriginal && result.notInPlace == nil {
            restored += 1
            bytesStored += result.bytes ?? 0
        }
    }
}
