import Foundation

/// Which failures are retried, and how long to wait before the next attempt.
public struct RetryPolicy: Sendable {
    public static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    public let maxRetries: Int
    public let baseDelay: Double
    public let maxWait: Double

    public init(maxRetries: Int, baseDelay: Double, maxWait: Double) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxWait = maxWait
    }

    /// Whether attempt number `attempt` (1-based, just failed) may be followed by another.
    public func allowsRetry(after attempt: Int) -> Bool {
        attempt <= maxRetries
    }

    /// Seconds to wait after attempt `attempt` failed: the server's Retry-After
    /// when it sent one, else exponential backoff with jitter; capped by `maxWait`.
    public func delay(after attempt: Int, retryAfter: Double?, random: Double = Double.random(in: 0...1)) -> Double {
        if let retryAfter, retryAfter >= 0 { return min(retryAfter, maxWait) }
        let exponential = baseDelay * pow(2, Double(max(0, attempt - 1)))
        // "Equal jitter": half fixed, half random, so retries spread out but never fire at once.
        return min(exponential / 2 + exponential / 2 * random, maxWait)
    }
}
