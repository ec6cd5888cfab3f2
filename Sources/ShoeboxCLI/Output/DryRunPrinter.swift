import ShoeboxKit

/// Prints `fetch --dry-run`: one line (or JSON object) per URL on stdout, the counts on stderr.
final class DryRunPrinter {
    private let console: Console
    private let json: Bool
    private let quiet: Bool
    private(set) var counts: [DryRunStep.Action: Int] = [:]

    init(console: Console, json: Bool, quiet: Bool) {
        self.console = console
        self.json = json
        self.quiet = quiet
    }

    func print(_ step: DryRunStep) {
        counts[step.action, default: 0] += 1
        console.out(json ? Self.jsonLine(step) : Self.textLine(step))
    }

    /// "fetch URL", "fetch URL (revalidate PATH)", "skip URL (archived as PATH)", "refuse FILE:LINE: reason (LINE)".
    static func textLine(_ step: DryRunStep) -> String {
        let url = TerminalText.oneLine(step.url)
        switch step.action {
        case .fetch:
            guard step.reason != nil else { return "fetch \(url)" }
            return "fetch \(url) (revalidate" + (step.path.map { " \(TerminalText.oneLine($0))" } ?? "") + ")"
        case .skip:
            return "skip \(url) (archived as \(TerminalText.oneLine(step.path ?? "an original whose row is missing")))"
        case .refuse:
            return "refuse \(TerminalText.oneLine(step.origin)): \(TerminalText.oneLine(step.reason ?? "")) (\(url))"
        }
    }

    static func jsonLine(_ step: DryRunStep) -> String {
        func text(_ value: String?) -> String { value.map(JSONText.string) ?? "null" }
        return JSONText.line([
            ("action", JSONText.string(step.action.rawValue)),
            ("path", text(step.path)),
            ("reason", text(step.reason)),
            ("source", JSONText.string(step.origin)),
            ("url", JSONText.string(step.url)),
        ])
    }

    /// "dry run: 3 lines: 2 to fetch, 1 to skip, 0 refused; nothing was requested or written".
    func printSummary(interrupted: Bool) {
        guard !quiet else { return }
        let fetch = counts[.fetch] ?? 0, skip = counts[.skip] ?? 0, refuse = counts[.refuse] ?? 0
        console.note("dry run: \(Counted.text(fetch + skip + refuse, "line")): \(fetch) to fetch, \(skip) to skip, "
            + "\(refuse) refused; nothing was requested or written" + (interrupted ? " (interrupted)" : "") + "\n")
    }
}
