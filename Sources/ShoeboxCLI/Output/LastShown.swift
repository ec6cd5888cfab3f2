import Foundation

/// When the progress line was last drawn, shared by the verify worker threads.
final class LastShown: @unchecked Sendable {
    private let lock = NSLock()
    private var time = -1.0

    /// True (and remembered) when at least 0.2 s passed since the last line.
    func claim(at now: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard now - time >= 0.2 else { return false }
        time = now
        return true
    }
}
