import Foundation

/// A flag set once from any thread (a signal handler's queue, say) and read from others.
public final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    public init() {}

    public func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    public var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
