/// What `shoebox export` did with one original.
public struct ExportOutcome: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Copied (or linked) into the folder.
        case exported
        /// Already in the folder with the same bytes (an export run again).
        case unchanged
        case failed
    }

    public var kind: Kind
    public var original: OriginalRecord
    /// Where it went, relative to the export folder ("2024/05/01/IMG_1.jpg").
    public var target: String
    public var reason: String?
}
