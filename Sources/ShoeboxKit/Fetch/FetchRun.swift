import Foundation

/// One `fetch`: reads the lists, skips what the library already has, runs the
/// transfers, archives the results, and keeps the library consistent even if it
/// is interrupted.
public final class FetchRun: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var library: LibraryConfiguration
        public var layout: LibraryLayout { library.layout }
        public var options = FetchOptions()
        /// List files; "-" is stdin.
        public var lists: [String] = []
        /// URLs given on the command line.
        public var urls: [String] = []
        /// Refuse to start when any line is invalid.
        public var strict = false
        /// Wait for another writer instead of failing.
        public var waitForLock = false
        /// With a shared catalog: seconds a worker's claims on the work queue last unless renewed
        /// (renewed every third of that); a killed worker's URLs return to the queue after it.
        public var lease: Double = 60
        /// Temporary copies `--strict` reads in place of lists that can be read only once
        /// (stdin, pipes), with the name each list was given by (set by `run`).
        var spooledLists: [String: String] = [:]

        /// A reader of `lists` that names a spooled copy as the user gave the list ("-": `<stdin>`).
        func listReader(_ lists: [String]) -> URLListReader {
            URLListReader(paths: lists, shownNames: spooledLists.mapValues(URLListReader.shownName))
        }

        public init(library: LibraryConfiguration) {
            self.library = library
        }

        public init(layout: LibraryLayout) {
            self.init(library: LibraryConfiguration(layout: layout))
        }
    }

    private var configuration: Configuration
    private let observer: FetchObserver
    private let lock = NSLock()
    private var summary = FetchSummary()
    private var total: Int?
    private var engine: TransferEngine?
    /// The shared work queue's side of this run, when it works from one.
    private var queueIntake: QueueIntake?
    private let cancelFlag = ManagedAtomicFlag()
    private var startTime = 0.0
    /// Set (under `lock`) once the run ends, so no progress line is drawn after the summary.
    private var progressStopped = false

    public init(configuration: Configuration, observer: FetchObserver) {
        self.configuration = configuration
        self.observer = observer
    }

    /// Stops the run: no new transfers, running ones aborted, completed work kept.
    public func cancel() {
        cancelFlag.set()
        lock.lock()
        let engine = self.engine
        lock.unlock()
        engine?.cancel()
    }

    /// The summary of a run stopped by a signal before any transfer started.
    private func interruptedBeforeStart() -> FetchSummary {
        var interrupted = FetchSummary()
        interrupted.cancelled = true
        interrupted.elapsed = TransferEngine.now() - startTime
        return interrupted
    }

    public func run() throws -> FetchSummary {
        startTime = TransferEngine.now()
        var lists = configuration.lists
        guard !lists.isEmpty || !configuration.urls.isEmpty else { throw FetchRunError.nothingToFetch }
        try configuration.options.validate()
        try URLListReader.checkReadable(lists)
        defer { for spooled in configuration.spooledLists.keys { unlink(spooled) } }
        // A shared queue knows a list by its bytes' hash: a stream is read into a file first.
        if configuration.strict || configuration.library.catalog.isShared {
            var spooledCopies: [String: String] = [:]
            // In the order given: a producer feeding one FIFO after another waits for its reader.
            for list in lists where spooledCopies[list] == nil && URLListReader.isStream(list) {
                guard let spooled = try ListSpooler.spool(list, isCancelled: { cancelFlag.isSet }) else {
                    return interruptedBeforeStart()
                }
                configuration.spooledLists[spooled] = list
                spooledCopies[list] = spooled
            }
            lists = lists.map { spooledCopies[$0] ?? $0 }
            if configuration.strict { try checkStrict(lists) }
        }

        let layout = configuration.layout
        let library: Library
        do {
            library = try Library.openForWriting(
                configuration.library, creating: true,
                waiting: Library.Waiting(wait: configuration.waitForLock, isCancelled: { [cancelFlag] in cancelFlag.isSet },
                                         onWait: { [observer] in observer.fetchWaitsForLock(library: layout.root, holder: $0) }))
        } catch LibraryError.waitInterrupted {
            return interruptedBeforeStart()
        }
        defer { withExtendedLifetime(library) {} }
        let store = try library.store()
        let catalog = try library.openCatalog()
        // Checked a moment ago by the first connection.
        let lookupCatalog = try library.openCatalog(checkIntegrity: false)
        let recovery = try library.recover(catalog: catalog)
        for path in recovery.blocked {
            observer.fetchNotice("\(store.location(of: path)) holds other bytes than its catalogued original, whose content "
                + "is kept in \(layout.staging)/ until that file or object is moved away; then run again to put it in place")
        }
        if library.isShared, recovery.dropped > 0 {
            observer.fetchNotice("removed \(recovery.dropped) object\(recovery.dropped == 1 ? "" : "s") stored by writers that died "
                + "before recording them (see SHARED CATALOG); their URLs are fetched again")
        }
        let journal = try library.openChangeLog()

        let queue = lists.isEmpty ? nil : try library.openWorkQueue()
        defer { queue?.close() }
        let retry = ConnectionRetry(bound: configuration.library.catalogRetryBound, onRetry: { [observer] error, wait in
            observer.fetchNotice("the shared catalog did not answer (\(error)); trying again in \(String(format: "%.2g", wait)) s")
        })
        var identities: [ListIdentity] = []
        if let queue {
            identities = try QueueLoader.load(lists: lists, shownNames: configuration.spooledLists, queue: queue, retry: retry) {
                [weak self] in self?.report($0)
            }
            for identity in identities {
                guard let status = try retry.run({ try queue.status(list: identity) }), status.isFinished else { continue }
                // A finished list run again: its failed URLs are tried again, as a rerun without a
                // shared catalog does; with --refresh every URL is revalidated. Workers starting
                // together reopen it once; the others join that pass.
                let scope: ReopenScope? = configuration.options.refresh ? .all : status.failed > 0 ? .failed : nil
                let reopened = try scope.map { scope in try retry.run { try queue.reopen(list: identity, scope) } } ?? 0
                if reopened > 0 {
                    observer.fetchNotice("\(identity.name): finished earlier (\(status.done) done, \(status.failed) failed) in the "
                        + "shared catalog; \(reopened) URL\(reopened == 1 ? "" : "s") queued again"
                        + (scope == .all ? " to be revalidated (--refresh)" : " (the failed ones)"))
                } else if let scope {
                    observer.fetchNotice("\(identity.name): another worker has just queued this list's URLs again; joining that pass"
                        + (scope == .all ? " (it revalidates only what it queued: run again with --refresh once it is finished "
                            + "if its done URLs were not revalidated)" : ""))
                } else {
                    observer.fetchNotice("\(identity.name): finished (\(status.done) done, \(status.failed) failed) in the shared "
                        + "catalog; nothing left to fetch (see shoebox status)")
                }
            }
        } else {
            total = ListCounter.count(lists: lists, extra: configuration.urls.count)
        }
        var engineOptions = configuration.options
        // A long wait for a retry is handed back to the queue, for whichever worker is free then.
        if queue != nil { engineOptions.handOffRetriesLongerThan = 5 }
        let engine = try TransferEngine(options: engineOptions, staging: store)
        lock.lock()
        self.engine = engine
        lock.unlock()
        if cancelFlag.isSet { engine.cancel() }

        let archiver = Archiver(store: store, catalog: catalog, journal: journal.map { $0.append(originals:sources:) },
                                publishFirst: library.isShared, retry: retry) { [weak self] in
            self?.report($0)
        }
        let archiveQueue = ArchiveQueue(archiver: archiver, engine: engine)
        let progressTimer = startProgressTimer()
        defer { stopProgress(progressTimer) }

        var intake: QueueIntake?
        if let queue {
            intake = QueueIntake(
                queue: queue, worker: WorkerIdentity.current(), lists: identities, claimBatch: max(16, configuration.options.jobs * 2),
                lease: configuration.lease, maxAttempts: configuration.options.retries + 1, retry: retry,
                lookup: configuration.options.refresh ? nil : lookupCatalog,
                onNoRoom: { [weak archiveQueue] in archiveQueue?.flushSoon() }, onInput: { [weak engine] in engine?.wakeUp() })
            lock.withLock { queueIntake = intake }
        }
        var requests = RequestSource(
            configuration: configuration, lists: intake.map { _ in [] } ?? lists, entries: intake, catalog: lookupCatalog, store: store,
            catalogIsShared: library.isShared, retry: retry,
            report: { [weak self] in self?.report($0) },
            countRepeat: { [weak self] in self?.countRepeat() },
            onInput: { [weak engine] in engine?.wakeUp() })
        engine.run(next: { requests.next() }, completion: archiveQueue.submit)
        requests.stop()
        let fatal = archiveQueue.finish()
        // What this worker still holds goes back to the queue at once (Ctrl-C, a stop).
        if let intake {
            lock.withLock { queueIntake = nil }
            do {
                try intake.close()
            } catch {
                observer.fetchNotice("could not hand back this worker's claims (\(error)); they return when the lease runs out")
            }
        }
        if let readError = requests.readError { throw readError }

        lock.lock()
        defer { lock.unlock() }
        summary.elapsed = TransferEngine.now() - startTime
        summary.cancelled = cancelFlag.isSet
        summary.interrupted = engine.interruptedCount
        if let error = fatal ?? engine.stopError {
            summary.stopReason = "\(error)"
            summary.catalogUnreachable = ConnectionRetry.isConnectionLoss(error)
        }
        // Stopped early (Ctrl-C, a full disk): what the list still held was never tried.
        if summary.cancelled || summary.stopReason != nil, let total {
            summary.notStarted = max(0, total - summary.total - summary.repeatedURLs)
        }
        return summary
    }

    /// No progress line after this returns; the timer's thread ends with it.
    private func stopProgress(_ timer: WorkerPool) {
        lock.withLock { progressStopped = true }
        withExtendedLifetime(timer) {}
    }

    private func checkStrict(_ lists: [String]) throws {
        var invalid: [String] = []
        let reader = configuration.listReader(lists)
        while let entry = try reader.next() {
            if case .invalid(let origin, _, let reason) = entry { invalid.append("\(origin): \(reason)") }
        }
        for url in configuration.urls {
            if case .invalid(let origin, _, let reason)? = URLListReader.parse(url, origin: "--url \(URLValidator.withoutPassword(url))") {
                invalid.append("\(origin): \(reason)")
            }
        }
        if !invalid.isEmpty { throw FetchRunError.invalidLines(invalid) }
    }

    private func report(_ result: FetchResult) {
        let intake = lock.withLock { queueIntake }
        if let intake, intake.handBack(result) {
            observer.fetchNotice("\(result.url): \(result.reason ?? "failed"); handed back to the shared list, "
                + "to be tried again in \(Int((result.retryAfter ?? 0).rounded())) s by whichever worker is free then")
            return
        }
        lock.lock()
        summary.add(result)
        lock.unlock()
        intake?.finish(result)
        observer.fetchDidFinish(result)
    }

    /// A URL listed again: fetched once, but a line done for the progress count.
    private func countRepeat() {
        lock.lock()
        summary.repeatedURLs += 1
        lock.unlock()
    }

    /// Draws the progress every 200 ms on a thread of its own (not a Dispatch
    /// timer: see `WorkerPool`); without that thread there is no progress line.
    private func startProgressTimer() -> WorkerPool {
        let timer = WorkerPool(name: "shoebox-draw", threads: 1)
        if timer.threads > 0 { scheduleProgress(on: timer, WorkerPool.Strand()) }
        return timer
    }

    private func scheduleProgress(on timer: WorkerPool, _ strand: WorkerPool.Strand) {
        timer.async(on: strand, after: 0.2) { [weak self, weak timer] in
            guard let self, let timer, self.drawProgress() else { return }
            self.scheduleProgress(on: timer, strand)
        }
    }

    /// False once the progress has stopped.
    private func drawProgress() -> Bool {
        lock.lock()
        // Drawn while holding the lock, so `stopProgress` returns only after a line in flight.
        defer { lock.unlock() }
        guard !progressStopped else { return false }
        // Counted as the summary counts: URLs and invalid lines; a URL listed again leaves the total once read.
        let progress = FetchProgress(
            finished: summary.total, total: total.map { max(summary.total, $0 - summary.repeatedURLs) }, failed: summary.failures,
            bytes: summary.bytes, elapsed: TransferEngine.now() - startTime)
        observer.fetchProgress(progress)
        return true
    }
}
