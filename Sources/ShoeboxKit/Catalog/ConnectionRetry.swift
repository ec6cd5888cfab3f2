import Foundation

/// How a writer rides out a shared catalog that goes away (a PostgreSQL restart, a network
/// cut): a call that failed because the connection was lost is made again, after 0.25 s,
/// then twice as long each time (at most 8 s), for at most `bound` seconds in all; then the
/// last error is thrown (the run stops, exit status 5). Only for calls that are safe to make
/// twice: a commit whose answer was lost may have happened, so what is retried must be
/// idempotent (insert-if-absent, upserts, claims keyed by their worker).
public struct ConnectionRetry: Sendable {
    /// Seconds to keep trying. At most half the stale age of reservations in effect
    /// (`LibraryRecovery.staleReservationAge(requested:retryBound:)` enforces it): a writer that
    /// gives up never comes back to reservations another writer has taken for abandoned.
    public var bound: Double
    /// `bound` unless SHOEBOX_CATALOG_RETRY_SECONDS says otherwise.
    public static let defaultBound: Double = 60
    /// Told of each failed attempt and the wait before the next one (for a notice on stderr).
    public var onRetry: (@Sendable (Error, Double) -> Void)?
    /// Sleeps; replaceable in tests.
    var sleep: @Sendable (Double) -> Void = { usleep(useconds_t($0 * 1_000_000)) }

    public init(bound: Double = defaultBound, onRetry: (@Sendable (Error, Double) -> Void)? = nil) {
        self.bound = bound
        self.onRetry = onRetry
    }

    /// Whether `error` means the catalog's server could not be reached or the connection broke.
    public static func isConnectionLoss(_ error: Error) -> Bool {
        switch error as? PostgresError {
        case .connectionLost?, .serverUnreachable?: return true
        default: return false
        }
    }

    public func run<T>(_ body: () throws -> T) throws -> T {
        let start = Date()
        var wait = 0.25
        while true {
            do {
                return try body()
            } catch where Self.isConnectionLoss(error) && Date().timeIntervalSince(start) + wait <= bound {
                onRetry?(error, wait)
                sleep(wait)
                wait = min(wait * 2, 8)
            }
        }
    }
}
