import Foundation

/// fdatasyncs descriptors in the background, on up to 8 threads at once, so a
/// staged file is usually durable before its batch commits: the batch then waits
/// only for the last few. Concurrent syncs still share file-system journal commits.
/// Plain threads, not Dispatch: libdispatch on Linux aborts when too many of its
/// workers block in system calls. A thread waits 50 ms for more work before it
/// ends: files staged one by one would otherwise cost a thread start each.
final class BackgroundSyncer: @unchecked Sendable {
    static let maxThreads = 8
    static let linger: TimeInterval = 0.05
    /// Guards the fields below; idle threads wait on it for work.
    private let condition = NSCondition()
    private var waiting: [Int32] = []
    private var threads = 0
    private var idle = 0
    private var started = 0
    private var failure: Int32?
    /// Entered for each sync started, left when it has ended.
    private let unfinished = DispatchGroup()

    /// Threads started so far, and those alive now (for tests).
    var threadCounts: (started: Int, alive: Int) { condition.withLock { (started, threads) } }

    /// Starts syncing `descriptor`; the caller keeps it open until `finish` returns.
    func start(_ descriptor: Int32) {
        unfinished.enter()
        condition.lock()
        defer { condition.unlock() }
        waiting.append(descriptor)
        if idle > 0 {
            condition.signal()
        } else if threads < Self.maxThreads {
            threads += 1
            started += 1
            Thread.detachNewThread { self.drain() }
        }
    }

    /// Waits for every sync started so far; returns the first errno since the last call.
    func finish() -> Int32? {
        unfinished.wait()
        return condition.withLock {
            defer { failure = nil }
            return failure
        }
    }

    private func drain() {
        condition.lock()
        while !waiting.isEmpty || lingered() {
            let descriptor = waiting.removeFirst()
            condition.unlock()
            let code = fdatasync(descriptor) == 0 ? nil : errno
            condition.lock()
            if let code, failure == nil { failure = code }
            unfinished.leave()
        }
        threads -= 1
        condition.unlock()
    }

    /// Whether work came within `linger` (called and returning with the lock held).
    private func lingered() -> Bool {
        let deadline = Date(timeIntervalSinceNow: Self.linger)
        idle += 1
        while waiting.isEmpty && condition.wait(until: deadline) {}
        idle -= 1
        return !waiting.isEmpty
    }
}
