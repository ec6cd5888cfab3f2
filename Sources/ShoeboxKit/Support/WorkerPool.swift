import Foundation

/// A few threads shared by serial job lists (strands), like serial
/// `DispatchQueue`s that target one concurrent queue: a strand's jobs run in
/// order, one at a time, on whichever thread is free; different strands run in
/// parallel. A job can also be given a delay.
///
/// Not Dispatch: a `DispatchQueue.async` that needs a new thread retries
/// `pthread_create` forever when the system refuses threads, so under a tight
/// process or pids limit every thread of a fetch ended up waiting there and the
/// run hung. A pool keeps the threads it could start; with none, jobs run on
/// the caller at once (a delayed one too): slower, but the work gets done. So
/// without threads a job that gives itself again recurses, and a strand keeps
/// its order only when one thread feeds it (as every strand here is fed).
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    /// One serial list of jobs; only the pool touches its fields, under its lock.
    final class Strand: @unchecked Sendable {
        fileprivate var jobs: [Job] = []
        /// Waiting for a thread, or running (on a pool thread, or a caller's `sync`).
        fileprivate var scheduled = false

        init() {}
    }

    private let state: PoolState
    /// How many threads started.
    let threads: Int

    init(name: String, threads wanted: Int, launcher: ThreadLauncher = .system) {
        let state = PoolState()
        self.state = state
        var started = 0
        while started < wanted, launcher.start(name: name, { state.runUntilStopped() }) {
            started += 1
        }
        threads = started
    }

    /// The threads end once they have run the jobs already given; delayed jobs
    /// not yet due are dropped.
    deinit {
        state.stop()
    }

    /// Runs `job` after the jobs given to `strand` before it.
    func async(on strand: Strand, _ job: @escaping Job) {
        guard threads > 0 else { return job() }
        state.add(job, to: strand)
    }

    /// Gives `job` to `strand` once `delay` has passed.
    func async(on strand: Strand, after delay: TimeInterval, _ job: @escaping Job) {
        guard threads > 0 else { return job() }
        state.add(job, to: strand, at: PoolState.now() + delay)
    }

    /// Runs `body` as the next job of `strand` (after those given before it, not
    /// the delayed ones) and returns its result. On an idle strand, `body` runs
    /// on the caller, as `DispatchQueue.sync` does: a thread hop for each small
    /// file's `finish` made fetch of 1,000 small files 20% slower. Never call it
    /// from a job of the same pool: that job's thread may be the one it waits for.
    func sync<T>(on strand: Strand, _ body: @escaping @Sendable () -> T) -> T {
        guard threads > 0 else { return body() }
        if state.claimIfIdle(strand) {
            defer { state.release(strand) }
            return body()
        }
        let result = LockedBox<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        state.add({
            result.update { $0 = body() }
            done.signal()
        }, to: strand)
        done.wait()
        return result.current!
    }
}

/// The strands with jobs waiting for a thread, and the delayed jobs.
private final class PoolState: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [WorkerPool.Strand] = []
    /// Deadlines on the monotonic clock (`now`), which no clock change moves.
    private var delayed: [(deadline: TimeInterval, strand: WorkerPool.Strand, job: WorkerPool.Job)] = []

    static func now() -> TimeInterval { ProcessInfo.processInfo.systemUptime }
    private var stopped = false

    func add(_ job: @escaping WorkerPool.Job, to strand: WorkerPool.Strand, at deadline: TimeInterval? = nil) {
        condition.withLock {
            if let deadline {
                delayed.append((deadline, strand, job))
                condition.signal()
            } else {
                enqueue(job, to: strand)
            }
        }
    }

    /// Marks an idle strand as running, so that its jobs wait for `release`.
    func claimIfIdle(_ strand: WorkerPool.Strand) -> Bool {
        condition.withLock {
            guard !strand.scheduled else { return false }
            strand.scheduled = true
            return true
        }
    }

    func release(_ strand: WorkerPool.Strand) {
        condition.withLock {
            strand.scheduled = false
            if !strand.jobs.isEmpty { schedule(strand) }
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    /// Takes a ready strand, runs the jobs it has, and puts it back if more came meanwhile.
    func runUntilStopped() {
        condition.lock()
        while let strand = nextReady() {
            let jobs = strand.jobs
            strand.jobs.removeAll()
            condition.unlock()
            for job in jobs { job() }
            condition.lock()
            strand.scheduled = false
            if !strand.jobs.isEmpty { schedule(strand) }
        }
        condition.unlock()
    }

    /// Waits for a strand with jobs, moving delayed jobs to their strands when
    /// due; nil once stopped with nothing ready (called with the lock held).
    private func nextReady() -> WorkerPool.Strand? {
        while true {
            let now = Self.now()
            let due = delayed.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            delayed.removeAll { $0.deadline <= now }
            for entry in due { enqueue(entry.job, to: entry.strand) }
            if !ready.isEmpty { return ready.removeFirst() }
            if stopped { return nil }
            if let soonest = delayed.map(\.deadline).min() {
                _ = condition.wait(until: Date(timeIntervalSinceNow: soonest - now))
            } else {
                condition.wait()
            }
        }
    }

    private func enqueue(_ job: @escaping WorkerPool.Job, to strand: WorkerPool.Strand) {
        strand.jobs.append(job)
        if !strand.scheduled { schedule(strand) }
    }

    private func schedule(_ strand: WorkerPool.Strand) {
        strand.scheduled = true
        ready.append(strand)
        condition.signal()
    }
}
