import Foundation

/// Hands out 0, 1, 2… up to a limit, to any thread.
final class IndexDispenser: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < limit else { return nil }
        next += 1
        return next - 1
    }
}
