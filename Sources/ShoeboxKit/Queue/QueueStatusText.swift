import Foundation

/// The readable form of a `QueueStatus` (what `shoebox status` prints): a few lines of
/// counts, then a table of the workers. Times are relative to the database server's clock
/// at the snapshot ("next in 42 s", "2 s ago"), so a machine with a wrong clock still
/// prints the truth. Example:
///
///     List urls.txt (sha256 1a2b3c4d5e6f): loaded, 61,234 lines, 50,000 URLs (1,200 listed twice or queued by another list)
///     12,345 of 50,000 done (24.6%), 120 claimed by 3 workers, 40 failed, 36,595 waiting, 900 waiting for retry (next in 42 s)
///     10 of the waiting were held by a worker whose lease ran out
///
///     WORKER               HOST    PID  CLAIMS  LEASE               HEARTBEAT  STARTED
///     box1-811-0a1b2c3d    box1    811      40  29 s left           1 s ago    12 min ago
///     box2-97-99aa01ff     box2     97      40  ran out 3 min ago   3 min ago  20 min ago
public enum QueueStatusText {
    public static func render(_ status: QueueStatus) -> String {
        var lines: [String] = []
        let list = "List \(status.list.name) (sha256 \(status.list.sha256.prefix(12)))"
        let repeated = status.urlsOffered - status.total
        let repeats = repeated > 0 ? " (\(grouped(repeated)) listed twice or queued by another list)" : ""
        if status.loaded {
            lines.append(
                "\(list): loaded, \(grouped(status.linesLoaded)) lines, \(plural(status.total, "URL"))\(repeats)")
        } else if status.loaderActive {
            lines.append(
                "\(list): loading, \(plural(status.total, "URL")) queued so far, "
                    + "through line \(grouped(status.linesLoaded))\(repeats)")
        } else {
            lines.append(
                "\(list): loading stopped at line \(grouped(status.linesLoaded)) with \(plural(status.total, "URL")) "
                    + "queued\(repeats); the next fetch of this list continues it")
        }

        var counts = "\(grouped(status.done)) of \(grouped(status.total)) done (\(percent(status.done, of: status.total)))"
        let holders = status.workersHoldingLeases
        counts += ", \(grouped(status.claimed)) claimed by \(plural(holders, "worker"))"
        counts += ", \(grouped(status.failed)) failed, \(grouped(status.waiting)) waiting"
        counts += ", \(grouped(status.waitingForRetry)) waiting for retry"
        if let next = status.nextRetryIn { counts += " (next in \(duration(next)))" }
        lines.append(counts)
        if status.abandoned > 0 {
            lines.append(
                "\(grouped(status.abandoned)) of the waiting \(status.abandoned == 1 ? "was" : "were") held by a worker "
                    + "whose lease ran out")
        }
        if status.isFinished { lines.append("Finished: every URL is done or failed.") }

        if !status.workers.isEmpty {
            lines.append("")
            var rows = [["WORKER", "HOST", "PID", "CLAIMS", "LEASE", "HEARTBEAT", "STARTED"]]
            for worker in status.workers {
                let lease = worker.leaseUntil.timeIntervalSince(status.serverTime)
                rows.append([
                    worker.id, worker.host, String(worker.pid), grouped(worker.claims),
                    worker.leaseExpired ? "ran out \(duration(-lease)) ago" : "\(duration(lease)) left",
                    ago(worker.lastHeartbeat, status.serverTime), ago(worker.started, status.serverTime),
                ])
            }
            let rightAligned: Set<Int> = [2, 3]
            let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = row.enumerated().map { column, text in
                    let pad = String(repeating: " ", count: widths[column] - text.count)
                    return rightAligned.contains(column) ? pad + text : text + pad
                }
                var line = cells.joined(separator: "  ")
                while line.hasSuffix(" ") { line.removeLast() }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// 12345 → "12,345".
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (number < 0 ? "-" : "") + out
    }

    /// One decimal, rounded down: 49,999 of 50,000 is "99.9%", not "100.0%".
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "0.0%" }
        let tenths = Int((Double(part) * 1000 / Double(whole)).rounded(.down))
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// "42 s", "3 min", "2 h 5 min", "3 d 4 h".
    static func duration(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded()))
        if whole < 60 { return "\(whole) s" }
        if whole < 3_600 { return "\(whole / 60) min" }
        if whole < 86_400 { return "\(whole / 3_600) h" + (whole % 3_600 >= 60 ? " \(whole % 3_600 / 60) min" : "") }
        return "\(whole / 86_400) d" + (whole % 86_400 >= 3_600 ? " \(whole % 86_400 / 3_600) h" : "")
    }

    private static func ago(_ time: Date, _ now: Date) -> String { "\(duration(now.timeIntervalSince(time))) ago" }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(grouped(count)) \(noun)\(count == 1 ? "" : "s")"
    }
}
