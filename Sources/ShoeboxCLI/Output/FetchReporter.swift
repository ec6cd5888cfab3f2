import Foundation
import ShoeboxKit

/// Prints a fetch run: JSON lines on stdout (with --json), failures on stderr,
/// a live progress line on a terminal, and the closing summary.
final class FetchReporter: FetchObserver, @unchecked Sendable {
    enum Verbosity {
        /// --quiet: no progress, no summary, no notices; failures, warnings and errors only.
        case quiet
        case normal
        /// --verbose: besides, one line per HTTP request.
        case verbose
    }

    private let console: Console
    private let json: Bool
    private let verbosity: Verbosity

    init(console: Console, json: Bool, verbosity: Verbosity = .normal) {
        self.console = console
        self.json = json
        self.verbosity = verbosity
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
        if result.restoredOriginal && verbosity != .quiet {
            console.clearProgress()
            let what = result.damagedCopy.map { "its file held other bytes than those recorded (kept at \(TerminalText.visible($0)))" }
                ?? "its file was missing from the library"
            console.note("restored \(TerminalText.visible(result.path ?? "")): \(what); \(url) put it back\n")
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
        guard console.stderrIsTerminal, verbosity != .quiet else { return }
        console.progress(Self.progressLine(progress, failed: { console.colored($0, "31") }))
    }

    /// "37/106 (35%) · 2 failed · 12.3 MiB · 4.1 MiB/s · ETA 0:12": URLs done (stored, skipped,
    /// failed…: what the summary counts) of the total, when the lists could be counted.
    /// `failed` colours the failure count when there is one.
    static func progressLine(_ progress: FetchProgress, failed: (String) -> String = { $0 }) -> String {
        var parts: [String] = []
        if let total = progress.total {
            let percent = total > 0 ? min(100, progress.finished * 100 / total) : 100
            parts.append("\(progress.finished)/\(total) (\(percent)%)")
        } else {
            parts.append(Counted.text(progress.finished, "URL"))
        }
        let failures = "\(progress.failed) failed"
        parts.append(progress.failed > 0 ? failed(failures) : failures)
        parts.append(ByteSize.format(progress.bytes))
        parts.append(Counted.rate(bytes: progress.bytes, seconds: progress.elapsed))
        if let total = progress.total, progress.finished > 0, progress.finished < total {
            let eta = progress.elapsed / Double(progress.finished) * Double(total - progress.finished)
            parts.append("ETA " + clock(eta))
        }
        return parts.joined(separator: " · ")
    }

    /// "0:12", "12:05", "1:02:03".
    static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        let (hours, minutes, secs) = (total / 3600, total % 3600 / 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    func fetchNotice(_ message: String) {
        console.error("warning: " + TerminalText.oneLine(message))
    }

    /// --wait: said once on stderr (on a terminal or not, so a log shows why a run took long).
    func fetchWaitsForLock(library: String, holder: String?) {
        guard verbosity != .quiet else { return }
        let who = holder.map { Self.describeHolder($0) } ?? "another process"
        console.error("waiting for \(TerminalText.oneLine(library)): \(who) is writing to it (Ctrl-C to stop waiting)")
    }

    /// "pid 1234" with its command line when /proc shows it: "pid 1234 (shoebox fetch list.txt)".
    static func describeHolder(_ holder: String, proc: String = "/proc") -> String {
        let shown = TerminalText.oneLine(holder)
        guard holder.hasPrefix("pid "), let pid = Int(holder.dropFirst(4)),
              let data = FileManager.default.contents(atPath: "\(proc)/\(pid)/cmdline"), !data.isEmpty else { return shown }
        var words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        // Cut at the last "/" by hand: NSString's lastPathComponent traps on a bare "~".
        if let program = words.first, let name = program.split(separator: "/").last { words[0] = String(name) }
        var command = words.joined(separator: " ")
        if command.count > 80 { command = String(command.prefix(79)) + "…" }
        return "\(shown) (\(TerminalText.oneLine(command)))"
    }

    /// --verbose: one line per HTTP request, redirect hops and retries included.
    func requestDidEnd(_ record: RequestRecord) {
        guard verbosity == .verbose else { return }
        console.clearProgress()
        console.note(Self.requestLine(record) + "\n")
    }

    /// "GET http://host/a.jpg 200 1.2 KiB 35 ms", "... attempt 2", "GET URL failed (Connection refused) 0 B 3 ms",
    /// "GET URL 200 64.0 KiB 9 ms aborted (why shoebox stopped it)".
    static func requestLine(_ record: RequestRecord) -> String {
        var line = "\(record.method) \(TerminalText.oneLine(record.url)) "
        if let error = record.error, record.status == 0 {
            line += "failed (\(TerminalText.oneLine(error)))"
        } else {
            line += "\(record.status)"
        }
        line += " \(ByteSize.format(record.bytes)) \(record.milliseconds) ms"
        if record.attempt > 1 { line += " attempt \(record.attempt)" }
        if let error = record.error, record.status != 0 { line += " aborted (\(TerminalText.oneLine(error)))" }
        return line
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
            + (summary.restored > 0 ? ["\(summary.restored) restored"] : [])
            + (summary.interrupted > 0 ? ["\(summary.interrupted) interrupted"] : [])
            + (summary.notStarted > 0 ? ["\(summary.notStarted) not started"] : [])
        var text = Counted.text(summary.total, "URL") + ": " + (counts.isEmpty ? "nothing to do" : counts.joined(separator: ", "))
        text += "; \(ByteSize.format(summary.bytes)) stored in \(Self.duration(summary.elapsed)) (\(Counted.rate(bytes: summary.bytes, seconds: summary.elapsed)))"
        if summary.repeatedURLs > 0 {
            text += "; \(Counted.text(summary.repeatedURLs, "repeated line")) fetched once"
        }
        if verbosity != .quiet { console.note(text + "\n") }
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
