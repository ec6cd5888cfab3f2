import Foundation

/// Runs the archiver on its own thread, so hashing-adjacent work, metadata
/// reads and commits overlap with the transfers; flushes a batch when it is full
/// or 100 ms after its first entry. The first fatal error cancels the engine.
/// Without the thread (the system refused it) the archiver runs on the network
/// thread, each transfer in a batch of its own.
/// At most `backlogLimit` transfers wait for the archiver: past that, `submit`
/// blocks the engine (each waiting transfer holds an open file).
final class ArchiveQueue: @unchecked Sendable {
    static let backlogLimit = 256
    private let worker: WorkerPool
    private let jobs = WorkerPool.Strand()
    private let room = DispatchSemaphore(value: ArchiveQueue.backlogLimit)
    private let archiver: Archiver
    private let engine: TransferEngine
    private var fatal: Error?
    private var flushScheduled = false

    init(archiver: Archiver, engine: TransferEngine, launcher: ThreadLauncher = .system) {
        self.archiver = archiver
        self.engine = engine
        worker = WorkerPool(name: "shoebox-archive", threads: 1, launcher: launcher)
    }

    func submit(_ transfer: CompletedTransfer) {
        room.wait()
        worker.async(on: jobs) {
            self.accept(transfer)
            self.room.signal()
        }
    }

    /// Flushes the batch now rather than when it is full or its timer ends (the shared queue's
    /// intake waits for what it handed out to be recorded); from any thread.
    func flushSoon() {
        worker.async(on: jobs) { self.flush() }
    }

    /// Flushes what is left and returns the fatal error, if one stopped the run.
    func finish() -> Error? {
        worker.sync(on: jobs) {
            self.flush()
            return self.fatal
        }
    }

    private func accept(_ transfer: CompletedTransfer) {
        if let fatal {
            archiver.reportUnrecorded(transfer, because: fatal)
            return
        }
        do {
            try archiver.accept(transfer)
        } catch {
            stop(error)
            archiver.reportUnrecorded(transfer, because: error)
            return
        }
        if archiver.pendingCount >= Archiver.batchLimit {
            flush()
        } else if !flushScheduled {
            flushScheduled = true
            worker.async(on: jobs, after: 0.1) {
                self.flushScheduled = false
                self.flush()
            }
        }
    }

    private func flush() {
        do {
            try archiver.flush()
        } catch {
            stop(error)
        }
    }

    private func stop(_ error: Error) {
        if fatal == nil { fatal = error }
        engine.cancel()
    }
}
