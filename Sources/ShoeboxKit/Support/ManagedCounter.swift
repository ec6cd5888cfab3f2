import Foundation

/// A counter any thread may advance (hands out 0, 1, 2...).
final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            defer { value &+= 1 }
            return value
        }
    }
}
