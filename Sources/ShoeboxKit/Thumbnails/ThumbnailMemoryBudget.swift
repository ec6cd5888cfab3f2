import Foundation

/// The memory every worker of a `thumbs` run shares for decoding (`--max-memory`):
/// a decode starts only when its estimate fits in what the running ones leave.
/// Waiters are served in arrival order, so a large decode is not starved by a
/// stream of small ones. A request larger than the whole budget must be refused
/// by the caller instead (it would never fit).
public final class ThumbnailMemoryBudget: @unchecked Sendable {
    /// Thrown by a decode that was waiting for the budget when the run was interrupted.
    struct Cancelled: Error {}

    public let total: Int64
    private let condition = NSCondition()
    private var reserved: Int64 = 0
    private var nextTicket = 0
    private var serving = 0
    private var peak: Int64 = 0
    private var cancelled = false
    /// Called (on the waiting thread, lock not held) when a reservation has to wait: for tests.
    var onWait: (@Sendable () -> Void)?
    /// Called with each reservation as it is granted, lock held (so in the order granted): for tests.
    var onGrant: (@Sendable (Int64) -> Void)?

    public init(total: Int64) {
        self.total = max(total, 1)
    }

    /// Blocks until `bytes` (at most `total`) fit beside the other reservations, then takes them;
    /// throws `Cancelled` (taking nothing) once `cancel` was called.
    public func reserve(_ bytes: Int64) throws {
        let bytes = min(max(bytes, 0), total)
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        var told = false
        while !cancelled && (ticket != serving || reserved + bytes > total) {
            if !told, let onWait {
                told = true
                condition.unlock()
                onWait()
                condition.lock()
                continue
            }
            condition.wait()
        }
        if cancelled {
            condition.unlock()
            throw Cancelled()
        }
        reserved += bytes
        peak = max(peak, reserved)
        serving += 1
        onGrant?(bytes)
        condition.broadcast()
        condition.unlock()
    }

    /// Wakes every waiting reservation, which throws; later ones throw at once.
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Gives back what `reserve(bytes)` took.
    public func release(_ bytes: Int64) {
        let bytes = min(max(bytes, 0), total)
        condition.lock()
        reserved -= bytes
        condition.broadcast()
        condition.unlock()
    }

    /// The most reserved at once so far.
    public var peakReserved: Int64 {
        condition.withLock { peak }
    }
}
