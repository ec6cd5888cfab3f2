import Foundation

/// Keeps a worker's leases alive: calls `WorkQueue.renew` every `interval` seconds on a
/// thread of its own until `stop`. Pick `interval` well under `lease` (a third of it lets two
/// renewals fail before anything runs out).
///
/// Give it its own queue connection (another `PostgresWorkQueue`) when the worker's own
/// connection may be busy for long: a call on one connection waits for the one before it, and
/// a `load` of a big list holds its connection for minutes.
///
/// `onRenew` gets the ids the worker still holds after each renewal (an item missing was
/// taken over: its result will be refused); `onError` gets a failed renewal (the next one is
/// tried on time anyway: a lost connection reconnects on the next call).
public final class WorkLeaseRenewer: @unchecked Sendable {
    private let queue: WorkQueue
    private let worker: WorkerIdentity
    private let lease: Double
    private let interval: Double
    private let onRenew: @Sendable (Set<Int64>) -> Void
    private let onError: @Sendable (Error) -> Void
    private let condition = NSCondition()
    private var running = false
    private var stopping = false
    private var finished = false

    public init(
        queue: WorkQueue, worker: WorkerIdentity, lease: Double, interval: Double,
        onRenew: @escaping @Sendable (Set<Int64>) -> Void = { _ in },
        onError: @escaping @Sendable (Error) -> Void = { _ in }
    ) {
        self.queue = queue
        self.worker = worker
        self.lease = lease
        self.interval = max(0.01, interval)
        self.onRenew = onRenew
        self.onError = onError
    }

    deinit { stop() }

    /// Starts the renewing thread; false when no thread could be started (then renew from
    /// the worker's own loop). Calling it again while running does nothing.
    @discardableResult
    public func start() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !running else { return true }
        running = true
        stopping = false
        finished = false
        let started = ThreadLauncher.system.start(name: "lease renewer") { [self] in loop() }
        if !started { running = false }
        return started
    }

    /// Stops renewing and waits for a renewal under way to end. The leases then run out in
    /// their time unless the worker calls `release`.
    public func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard running else { return }
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        running = false
    }

    private func loop() {
        while true {
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: interval)
            while !stopping && Date() < deadline { _ = condition.wait(until: deadline) }
            if stopping {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
            do {
                onRenew(try queue.renew(worker: worker, lease: lease))
            } catch {
                onError(error)
            }
        }
    }
}
