import Foundation

/// fdatasyncs descriptors in the background, on up to 8 threads at once, so a
/// staged file is usually durable before its batch commits: the batch then waits
/// only for the last few. Concurrent syncs still share file-system journal commits.
/// The syncer owns the descriptors it is given: `finish` closes them once synced.
/// Plain threads, not Dispatch: libdispatch on Linux aborts when too many of its
/// workers block in system calls. A thread waits `linger` for more work before it
/// ends: files staged one by one would otherwise cost a thread start each.
final class BackgroundSyncer: @unchecked Sendable {
    static let maxThreads = 8
    let linger: TimeInterval
    /// Guards the fields below; idle threads wait on it for work.
    private let condition = NSCondition()
    /// Every descriptor started since the last `finish`, and those not yet taken by a thread.
    private var started: [Int32] = []
    private var waiting: [Int32] = []
    private var threads = 0
    private var idle = 0
    private var threadsStarted = 0
    private var failure: Int32?
    /// Entered for each sync started, left when it has ended.
    private let unfinished = DispatchGroup()

    private let launcher: ThreadLauncher

    init(linger: TimeInterval = 0.05, launcher: ThreadLauncher = .system) {
        self.linger = linger
        self.launcher = launcher
    }

    /// Threads started so far, and those alive now (for tests).
    var threadCounts: (started: Int, alive: Int) { condition.withLock { (threadsStarted, threads) } }

    /// Starts syncing `descriptor`, which the syncer now owns.
    func start(_ descriptor: Int32) {
        unfinished.enter()
        condition.lock()
        started.append(descriptor)
        waiting.append(descriptor)
        if idle > 0 {
            condition.signal()
        } else if threads < Self.maxThreads {
            threads += 1
            threadsStarted += 1
            if !launcher.start(name: "shoebox-sync", { self.drain() }) {
                threads -= 1
                threadsStarted -= 1
                // With no thread alive to take it, the caller syncs it (a live one will take it).
                if threads == 0 {
                    waiting.removeLast()
                    condition.unlock()
                    let code = Self.sync(descriptor)
                    condition.withLock { finished(code) }
                    return
                }
            }
        }
        condition.unlock()
    }

    /// Waits until every descriptor started so far is synced, closes them, and
    /// returns the first errno since the last call.
    func finish() -> Int32? {
        let batch = condition.withLock {
            defer { started.removeAll() }
            return started
        }
        unfinished.wait()
        for descriptor in batch { close(descriptor) }
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
            let code = Self.sync(descriptor)
            condition.lock()
            // Still holding the lock when this thread goes idle, so a `start` right after
            // `finish` returns finds it idle instead of starting another.
            finished(code)
        }
        threads -= 1
        condition.unlock()
    }

    /// fdatasync's errno, nil when it succeeded.
    private static func sync(_ descriptor: Int32) -> Int32? {
        fdatasync(descriptor) == 0 ? nil : errno
    }

    /// Records one sync as done (called with the lock held).
    private func finished(_ code: Int32?) {
        if let code, failure == nil { failure = code }
        unfinished.leave()
    }

    /// Whether work came within `linger` (called and returning with the lock held).
    private func lingered() -> Bool {
        let deadline = Date(timeIntervalSinceNow: linger)
        idle += 1
        while waiting.isEmpty && condition.wait(until: deadline) {}
        idle -= 1
        return !waiting.isEmpty
    }
}
