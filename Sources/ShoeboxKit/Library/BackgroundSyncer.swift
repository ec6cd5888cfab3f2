import Foundation

/// fdatasyncs descriptors in the background, on up to 8 threads at once, so a
/// staged file is usually durable before its batch commits: the batch then waits
/// only for the last few. Concurrent syncs still share file-system journal commits.
/// Plain threads, not Dispatch: libdispatch on Linux aborts when too many of its
/// workers block in system calls. Threads end 50 ms after the work runs out.
final class BackgroundSyncer: @unchecked Sendable {
    static let maxThreads = 8
    static let linger: TimeInterval = 0.05
    private let condition = NSCondition()
    private var waiting: [Int32] = []
    private var threads = 0
    /// Threads waiting for work (lingering).
    private var idle = 0
    private var unfinished = 0
    private var failure: Int32?
    private var started = 0

    /// Threads started so far, and those alive now (for tests).
    var threadCounts: (started: Int, alive: Int) { condition.withLock { (started, threads) } }

    /// Starts syncing `descriptor`; the caller keeps it open until `finish` returns.
    func start(_ descriptor: Int32) {
        condition.lock()
        defer { condition.unlock() }
        waiting.append(descriptor)
        unfinished += 1
        if idle > 0 { condition.broadcast() }
        if waiting.count > idle && threads < Self.maxThreads {
            threads += 1
            started += 1
            Thread.detachNewThread { self.drain() }
        }
    }

    /// Waits for every sync started so far; returns the first errno since the last call.
    func finish() -> Int32? {
        condition.lock()
        defer { condition.unlock() }
        while unfinished > 0 { condition.wait() }
        defer { failure = nil }
        return failure
    }

    private func drain() {
        condition.lock()
        while !waiting.isEmpty || lingered() {
            let descriptor = waiting.removeFirst()
            condition.unlock()
            let code = fdatasync(descriptor) == 0 ? nil : errno
            condition.lock()
            if let code, failure == nil { failure = code }
            unfinished -= 1
            if unfinished == 0 { condition.broadcast() }
        }
        threads -= 1
        condition.unlock()
    }

    /// Waits a little for more work before the thread ends (with the lock held):
    /// files staged one by one would otherwise cost a thread start each.
    private func lingered() -> Bool {
        let deadline = Date(timeIntervalSinceNow: Self.linger)
        idle += 1
        while waiting.isEmpty && condition.wait(until: deadline) {}
        idle -= 1
        return !waiting.isEmpty
    }
}
