import Foundation
import ShoeboxKit

/// Prints a fetch run: JSON lines on stdout (with --json), failures on stderr,
/// a live progress line on a terminal, and the closing summary.
final class FetchReporter: FetchObserver, @unchecked Sendable {
    private let console: Console
    private let json: Bool

    init(console: Console, json: Bool) {
        self.console = console
        self.json = json
    }

    func fetchDidFinish(_ result: FetchResult) {
        if json {
            console.out(FetchResultJSON.line(for: result))
        }
        // Every part but the label comes from the list, the server or the disk.
        let url = TerminalText.visible(result.url), origin = TerminalText.visible(result.origin)
        if let problem = result.notInPlace {
            console.clearProgress()
            console.note("warning \(url): recorded, but not yet at \(TerminalText.visible(result.path ?? "its path")) "
                + "(\(TerminalText.visible(problem))); the next fetch or reindex moves it into place\n")
        }
        if result.restoredOriginal {
            console.clearProgress()
            console.note("restored \(TerminalText.visible(result.path ?? "")): its file was missing from the library; \(url) put it back\n")
        }
        guard !result.outcome.isSuccess else { return }
        console.clearProgress()
        let label = console.colored(result.outcome.rawValue, "31")
        let reason = TerminalText.visible(result.reason ?? (result.attempts == 0 ? "" : "unknown reason"))
        if result.attempts == 0 {
            // A list line that is not a URL: "FILE:LINE: reason".
            console.note("\(origin): \(label): \(reason) (\(url))\n")
        } else {
            console.note("\(label) \(url): \(reason) [\(origin)]\n")
        }
    }

    func fetchProgress(_ progress: FetchProgress) {
        guard console.stderrIsTerminal else { return }
        var line = "\(progress.finished)"
        if let total = progress.total { line += "/\(total)" }
        let rate = progress.elapsed > 0 ? Double(progress.bytes) / progress.elapsed : 0
        line += "  \(ByteSize.format(progress.bytes))  \(ByteSize.format(Int64(rate)))/s"
        if let total = progress.total, progress.finished > 0, progress.finished < total {
            let eta = progress.elapsed / Double(progress.finished) * Double(total - progress.finished)
            line += "  ETA \(Self.duration(eta))"
        }
        if progress.failed > 0 { line += "  " + console.colored("\(progress.failed) failed", "31") }
        console.progress(line)
    }

    /// `outputFailed`: the run was stopped because its results could not be written.
    func printSummary(_ summary: FetchSummary, outputFailed: Bool = false) {
        console.clearProgress()
        if summary.cancelled && summary.total == 0 && !outputFailed {
            // Stopped while waiting for the lock or reading a piped list.
            console.error("interrupted before any URL was fetched; nothing was done")
            return
        }
        let order: [FetchOutcome] = [.stored, .duplicate, .unchanged, .skipped, .failed, .rejected]
        let counts = order.compactMap { outcome in summary.counts[outcome].map { "\($0) \(outcome.rawValue)" } }
            + (summary.interrupted > 0 ? ["\(summary.interrupted) interrupted"] : [])
            + (summary.notStarted > 0 ? ["\(summary.notStarted) not started"] : [])
        let rate = summary.elapsed > 0 ? Double(summary.bytes) / summary.elapsed : 0
        var text = "\(summary.total) URL\(summary.total == 1 ? "" : "s"): " + (counts.isEmpty ? "nothing to do" : counts.joined(separator: ", "))
        text += "; \(ByteSize.format(summary.bytes)) stored in \(Self.duration(summary.elapsed)) (\(ByteSize.format(Int64(rate)))/s)"
        if summary.repeatedURLs > 0 {
            text += "; \(summary.repeatedURLs) repeated line\(summary.repeatedURLs == 1 ? "" : "s") fetched once"
        }
        console.note(text + "\n")
        if summary.cancelled && outputFailed {
            console.error("stopped: the results could not be written; running transfers aborted, completed work kept")
        } else if summary.cancelled {
            console.error("interrupted: running transfers aborted, completed work kept; run the same command again to continue")
        }
        if let fatal = summary.stopReason {
            console.error("stopped: \(fatal)")
        }
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format: "%.1fs", seconds) }
        let total = Int(seconds)
        return total < 3600 ? "\(total / 60)m\(total % 60)s" : "\(total / 3600)h\(total % 3600 / 60)m"
    }
}
