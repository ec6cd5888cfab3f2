import ShoeboxKit

/// The lines `shoebox import` prints for one file.
enum ImportResultLine {
    /// "stored SOURCE -> originals/…", "duplicate SOURCE = originals/…", "failed SOURCE: reason".
    static func text(_ result: FetchResult, dryRun: Bool) -> String {
        let source = TerminalText.visible(result.origin)
        let path = TerminalText.visible(result.path ?? "")
        let verb = dryRun ? "would " : ""
        switch result.outcome {
        case .stored: return "\(verb)store \(source) -> \(path)"
        case .duplicate: return "duplicate \(source) = \(path)"
        case .unchanged, .skipped: return "unchanged \(source) = \(path)"
        case .failed, .rejected: return "\(result.outcome.rawValue) \(source): \(TerminalText.visible(result.reason ?? "unknown reason"))"
        }
    }

    /// fetch's JSON line; a dry run's outcome says "would-store".
    static func json(_ result: FetchResult, dryRun: Bool) -> String {
        guard dryRun, result.outcome == .stored else { return FetchResultJSON.line(for: result) }
        return FetchResultJSON.line(for: result).replacingOccurrences(of: "\"outcome\":\"stored\"", with: "\"outcome\":\"would-store\"")
    }

    static func skippedJSON(path: String, what: String) -> String {
        JSONText.line([("outcome", JSONText.string("not-imported")), ("reason", JSONText.string(what)), ("source", JSONText.string(path))])
    }
}
