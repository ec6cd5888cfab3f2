import Foundation

/// How often, and after how long, a request that failed transiently (HTTP 500, 502, 503,
/// 504, `SlowDown`, a refused or broken connection) is tried again: exponential backoff with
/// "equal jitter" (half the delay fixed, half random). The default makes at most 5 attempts
/// and waits at most 0.1 + 0.2 + 0.4 + 0.8 = 1.5 s in all.
public struct S3RetryPolicy: Sendable {
    public var maxAttempts: Int
    public var baseDelay: Double
    public var maxDelay: Double

    public init(maxAttempts: Int = 5, baseDelay: Double = 0.1, maxDelay: Double = 2) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// No retries.
    public static let none = S3RetryPolicy(maxAttempts: 1)

    /// Seconds to wait after attempt `attempt` (1-based) failed.
    public func delay(after attempt: Int, random: Double = Double.random(in: 0...1)) -> Double {
        let exponential = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        return exponential / 2 + exponential / 2 * random
    }
}
