/// How a URL ended up (`outcome` column of `sources`).
public enum FetchOutcome: String, Sendable, Codable, CaseIterable {
    case stored, duplicate, unchanged, skipped, failed, rejected

    /// Whether this outcome counts as success for the exit status.
    public var isSuccess: Bool {
        switch self {
        case .stored, .duplicate, .unchanged, .skipped: return true
        case .failed, .rejected: return false
        }
    }
}
