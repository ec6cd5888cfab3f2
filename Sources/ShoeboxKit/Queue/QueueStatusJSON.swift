import Foundation

/// The JSON form of a `QueueStatus` (what `shoebox status --json` prints): one object on one
/// line, keys sorted. Keys are stable; new ones may be added, none renamed or dropped:
///
///     total, done, failed, claimed, waiting, abandoned, waiting_for_retry   integers
///         (total = done + failed + claimed + waiting + waiting_for_retry; abandoned ⊂ waiting)
///     finished            bool: loaded and every item done or failed
///     next_retry_at       ISO 8601 UTC or null; next_retry_in_seconds: number or null
///     server_time         ISO 8601 UTC: the database server's clock at the snapshot
///     list                {sha256, name, loaded (bool), loader_active (bool), lines_loaded, urls_offered}
///     workers             [{id, host, pid, claims, started, last_heartbeat, lease_until
///                          (ISO 8601 UTC), lease_expired (bool)}], by start time
public enum QueueStatusJSON {
    public static func render(_ status: QueueStatus) -> String {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object(status), options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The object, for a caller that embeds it in a larger one.
    public static func object(_ status: QueueStatus) -> [String: Any] {
        [
            "total": status.total, "done": status.done, "failed": status.failed, "claimed": status.claimed,
            "waiting": status.waiting, "abandoned": status.abandoned, "waiting_for_retry": status.waitingForRetry,
            "finished": status.isFinished,
            "next_retry_at": status.nextRetry.map(time) ?? NSNull(),
            "next_retry_in_seconds": status.nextRetryIn.map { ($0 * 1000).rounded() / 1000 } ?? NSNull(),
            "server_time": time(status.serverTime),
            "list": [
                "sha256": status.list.sha256, "name": status.list.name, "loaded": status.loaded,
                "loader_active": status.loaderActive,
                "lines_loaded": status.linesLoaded, "urls_offered": status.urlsOffered,
            ] as [String: Any],
            "workers": status.workers.map { worker in
                [
                    "id": worker.id, "host": worker.host, "pid": worker.pid, "claims": worker.claims,
                    "started": time(worker.started), "last_heartbeat": time(worker.lastHeartbeat),
                    "lease_until": time(worker.leaseUntil), "lease_expired": worker.leaseExpired,
                ] as [String: Any]
            },
        ]
    }

    /// ISO 8601 UTC with milliseconds, e.g. "2026-12-02T06:10:42.125Z".
    static func time(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        let text = Timestamp.iso8601(time_t(seconds))
        let digits = String(fraction)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
