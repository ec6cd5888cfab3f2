import Foundation

/// Runs `body(0..<count)` on `jobs` threads, each taking the next index when free
/// (so one big file does not hold up a whole share of the work).
enum ParallelLoop {
    static func run(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let next = IndexDispenser(limit: count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { _ in
            while let index = next.take() { body(index) }
        }
    }

    /// The number of cores to use by default.
    static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

/// Hands out 0, 1, 2… up to a limit, to any thread.
private final class IndexDispenser: @unchecked Sendable {
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

/// A value collected from several threads.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func update<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    var current: Value { update { $0 } }
}
