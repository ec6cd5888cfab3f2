import Foundation

/// Staging files made ahead, on a thread of their own, for the transfer engine. Making a
/// file is an inode allocation: on the bench machine's ext4 it was a third of the network
/// thread's time on 1,000 files of 173 KB, spent at the first byte of every response while
/// other transfers waited. As many files are kept ready as were asked for so far, up to
/// `count` (a run that downloads nothing makes none, one that downloads one file makes one
/// spare); `close` removes the unused ones (a crash leaves them as partial downloads, which
/// recovery removes like any other).
/// Without the thread (the system refused it), every file is made when it is asked for.
final class SpareStagingFiles: UploadStaging, @unchecked Sendable {
    private let base: UploadStaging
    let count: Int
    private let worker: WorkerPool
    private let strand = WorkerPool.Strand()
    private let lock = NSLock()
    private var ready: [StagingFile] = []
    /// Files asked for so far: how many to keep ready, up to `count`.
    private var asked = 0
    private var refilling = false
    private var closed = false

    init(base: UploadStaging, count: Int, launcher: ThreadLauncher = .system) {
        self.base = base
        self.count = count
        worker = WorkerPool(name: "shoebox-stage", threads: count > 0 ? 1 : 0, launcher: launcher)
    }

    deinit {
        close()
    }

    /// A file made ahead if one is ready, else one made now (whose error, a full disk say, is
    /// the caller's to report).
    func makeStagingFile() throws -> StagingFile {
        let spare = lock.withLock {
            asked += 1
            return ready.popLast()
        }
        refillSoon()
        if let spare { return spare }
        return try base.makeStagingFile()
    }

    func discard(_ file: StagingFile) {
        base.discard(file)
    }

    /// Stops making files, waits for one being made, and removes those never handed out.
    func close() {
        guard lock.withLock({ () -> Bool in
            defer { closed = true }
            return !closed
        }) else { return }
        if worker.threads > 0 { worker.sync(on: strand) {} }
        let unused = lock.withLock {
            defer { ready.removeAll() }
            return ready
        }
        for file in unused { base.discard(file) }
    }

    /// How many files to keep ready (called with the lock held).
    private var wanted: Int { min(count, asked) }

    /// Files ready now (for tests).
    var readyCount: Int { lock.withLock { ready.count } }

    private func refillSoon() {
        guard worker.threads > 0 else { return }
        let start = lock.withLock { () -> Bool in
            guard !refilling, !closed, ready.count < wanted else { return false }
            refilling = true
            return true
        }
        if start { worker.async(on: strand) { self.refill() } }
    }

    /// Makes files until `count` are ready. A file that cannot be made ends the round: the
    /// next request makes its own, and reports why.
    private func refill() {
        defer { lock.withLock { refilling = false } }
        while lock.withLock({ !closed && ready.count < wanted }) {
            guard let file = try? base.makeStagingFile() else { return }
            let kept = lock.withLock { () -> Bool in
                guard !closed else { return false }
                ready.append(file)
                return true
            }
            if !kept {
                base.discard(file)
                return
            }
        }
    }
}
