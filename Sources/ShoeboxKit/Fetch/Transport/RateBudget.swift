/// --limit-rate for a whole run: a token bucket that fills at `rate` bytes a second, up to
/// one second's worth. A transfer whose bytes find it empty is paused (its write callback
/// answers CURL_WRITEFUNC_PAUSE) until the engine sees it filled again.
///
/// libcurl's own CURLOPT_MAX_RECV_SPEED_LARGE is not used: it is per transfer, and 7.88
/// only waits before the next read, so a body that is already in the socket's buffers
/// (2 MB on loopback) arrives at once whatever the limit (measured: curl --limit-rate
/// 500K took 0.14 s for 2 MB). Used on the engine's thread only.
final class RateBudget {
    let rate: Double
    private var tokens: Double = 0
    private var filledAt: Double

    init(bytesPerSecond: Int64, now: Double) {
        rate = Double(bytesPerSecond)
        filledAt = now
    }

    private func fill(now: Double) {
        tokens = min(rate, tokens + (now - filledAt) * rate)
        filledAt = now
    }

    /// Whether bytes may be taken now; a chunk may overdraw the bucket (it is paid back first).
    func allows(now: Double) -> Bool {
        fill(now: now)
        return tokens > 0
    }

    func spend(_ count: Int) {
        tokens -= Double(count)
    }

    /// Seconds until `allows` says yes.
    func secondsUntilAvailable(now: Double) -> Double {
        fill(now: now)
        return tokens > 0 ? 0 : -tokens / rate + 0.001
    }
}
