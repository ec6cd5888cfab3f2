import Foundation

/// A fetch worker's side of the shared work queue: hands the transfer engine the URLs this
/// worker claims, batch by batch, under a lease it renews, and tells the queue what became of
/// each one.
///
/// - Claims: `claimBatch` items at a time, from the lists in turn, when the last batch is used
///   up and fewer than `claimBatch` of the items handed out are unfinished (downloading, or
///   downloaded and waiting to be recorded): a worker whose store is slower than its downloads
///   holds less than two batches, not its whole backlog (up to `ArchiveQueue.backlogLimit`), so
///   a worker killed leaves no more than that to be fetched again (the engine, told to wait
///   meanwhile, is woken when one finishes). Nothing claimable while other workers still hold
///   items, or items wait for a retry time: the engine waits and is woken to look again (when
///   this worker's last item is finished; holding none, after 0.1 s backing off to 1 s, or at
///   the next retry);
///   the run ends once every list is finished (all items done or failed), so a worker that
///   outlives the others takes over what a dead one held once its lease runs out.
/// - Results: done (stored, duplicate, unchanged, skipped, rejected) or failed for good are
///   completed in batches; a failure the engine handed back (`FetchResult.retryAfter`, a 503
///   with Retry-After) goes back to wait that long, for whichever worker is free then, until
///   the item has had `maxAttempts`. A result the run could not record is not reported: its
///   item is released when the run ends, as are items never started (Ctrl-C).
/// - The lease is renewed every third of its length on a thread of its own, which also sends
///   the completions gathered so far.
///
/// Thread safety: `poll` runs on the engine's thread, `finish` on the archiver's, the renewal
/// on its own; state is under a lock, and the queue's calls are its own to serialise.
final class QueueIntake: ListEntries, @unchecked Sendable {
    private let queue: WorkQueue
    private let worker: WorkerIdentity
    private let lists: [ListIdentity]
    private let claimBatch: Int
    private let lease: Double
    private let maxAttempts: Int
    private let retry: ConnectionRetry
    private let onInput: @Sendable () -> Void
    /// Told when this worker holds a batch of unfinished items and so claims no more: the
    /// archiver is to record what it has now (`ArchiveQueue.flushSoon`).
    private let onNoRoom: @Sendable () -> Void

    private let lock = NSLock()
    private var batch: [WorkItem] = []
    /// Claimed items in this run, by the URL results carry (`FetchItem.recordedURL`).
    private var held: [String: WorkItem] = [:]
    private var completions: [WorkCompletion] = []
    private var nextList = 0
    /// The engine was told `.waiting` because too many items handed out are unfinished: it
    /// is woken once enough of them are.
    private var waitingForRoom = false
    private var stopped = false
    private var failure: Error?
    private let timer = WorkerPool(name: "shoebox-lease", threads: 1)
    /// Claims an item may take beyond its tries (workers killed while holding it) before it
    /// is given up on.
    static let extraClaims = 3
    private let strand = WorkerPool.Strand()

    /// Looks up the sources of a claimed batch at once (`Catalog.sources(urls:)`).
    private let lookup: Catalog?
    /// The batch's sources, by URL, until each entry's lookup takes its own.
    private var sources: [String: SourceRecord] = [:]
    private var looked: Set<String> = []

    init(queue: WorkQueue, worker: WorkerIdentity, lists: [ListIdentity], claimBatch: Int, lease: Double,
         maxAttempts: Int, retry: ConnectionRetry, lookup: Catalog? = nil, onNoRoom: @escaping @Sendable () -> Void = {},
         onInput: @escaping @Sendable () -> Void) {
        self.onNoRoom = onNoRoom
        self.lookup = lookup
        self.queue = queue
        self.worker = worker
        self.lists = lists
        self.claimBatch = claimBatch
        self.lease = lease
        self.maxAttempts = maxAttempts
        self.retry = retry
        self.onInput = onInput
        scheduleRenewal()
    }

    func poll() -> ListPrefetcher.Poll {
        // Before claiming more or asking whether the lists are finished: what this worker
        // finished counts (the queue's tallies are kept by `complete`).
        if lock.withLock({ batch.isEmpty && !completions.isEmpty }) { sendCompletions() }
        lock.lock()
        defer { lock.unlock() }
        if let failure { return .failed(failure) }
        if stopped { return .end }
        if batch.isEmpty {
            if held.count >= claimBatch {
                // What is downloaded waits for the archiver's batch to fill or its timer: asked
                // to record it now, so that room comes at once.
                if !waitingForRoom { onNoRoom() }
                waitingForRoom = true
                return .waiting
            }
            // Asked a moment ago and found nothing: the engine calls at every turn of its loop,
            // and waits for the wake-up instead.
            if ProcessInfo.processInfo.systemUptime < nextLook { return .waiting }
            do {
                if try !claim() { return try nothingClaimable() }
            } catch {
                failure = error
                return .failed(error)
            }
        }
        let item = batch.removeFirst()
        let origin = "\(listName(of: item)):\(item.line)"
        // An item handed out again and again whose workers never finish it (each died or lost
        // its lease on it) would be handed out forever: it fails for good instead.
        if item.claims > maxAttempts + Self.extraClaims {
            let reason = "handed out \(item.claims) times without a result (its workers died or stalled on it); given up"
            _ = try? retry.run { try queue.fail(worker: worker, item: item.id, reason: reason) }
            return .entry(.invalid(origin: origin, line: URLValidator.withoutPassword(item.url), reason: reason))
        }
        guard case .url(let fetchItem)? = URLListReader.parse(item.url, origin: origin) else {
            // Loaded as a valid URL: cannot happen, but never leave the item claimed for ever.
            _ = try? retry.run { try queue.fail(worker: worker, item: item.id, reason: "not a URL") }
            return .entry(.invalid(origin: origin, line: URLValidator.withoutPassword(item.url), reason: "not a URL"))
        }
        held[fetchItem.recordedURL] = item
        return .entry(.url(fetchItem))
    }

    /// How long to wait before asking again whether the lists are finished (`nothingClaimable`).
    private var idleWait = 0.1
    /// Before this time (uptime seconds) the queue is not asked again (`poll`).
    private var nextLook = 0.0

    /// Which list an item came from, for its origin: the list it was claimed from.
    private var claimedFrom: [Int64: String] = [:]
    private func listName(of item: WorkItem) -> String { claimedFrom.removeValue(forKey: item.id) ?? "queue" }

    /// Claims the next batch from the lists in turn; false when none had anything claimable.
    private func claim() throws -> Bool {
        for offset in 0..<lists.count {
            let list = lists[(nextList + offset) % lists.count]
            let items = try retry.run { try queue.claim(worker: worker, list: list, limit: claimBatch, lease: lease) }
            if !items.isEmpty {
                idleWait = 0.1
                nextList = (nextList + offset + 1) % lists.count
                for item in items { claimedFrom[item.id] = list.name }
                batch = items
                if let lookup {
                    // The URLs as given: a queued URL has no password, so it is also the recorded one.
                    let urls = items.map(\.url)
                    sources = try retry.run { try lookup.sources(urls: urls) }
                    looked = Set(urls)
                }
                return true
            }
        }
        return false
    }

    /// `.end` when every list is finished; else `.waiting`, with a wake-up to look again.
    /// While this worker holds items the lists cannot be finished: nothing is asked, and the
    /// last of its items to finish wakes the engine (`finish`). Holding none, it asks after
    /// 0.1 s, then twice as long each time up to 1 s (or at the next retry time): a worker
    /// whose list another has just finished ends at once, one waiting on a long tail asks
    /// once a second.
    private func nothingClaimable() throws -> ListPrefetcher.Poll {
        let now = ProcessInfo.processInfo.systemUptime
        if !held.isEmpty {
            // Claims again (a dead worker's lease may run out) at most once a second meanwhile.
            nextLook = now + 1
            return .waiting
        }
        var wait = idleWait
        idleWait = min(idleWait * 2, 1)
        var finished = true
        for list in lists {
            let status = try retry.run { try queue.status(list: list) }
            if status?.isFinished == true { continue }
            finished = false
            if let next = status?.nextRetryIn { wait = min(wait, max(0.05, next)) }
        }
        if finished { return .end }
        nextLook = now + wait
        let wake = onInput
        timer.async(on: strand, after: wait) { wake() }
        return .waiting
    }

    /// A failure the engine handed back (`FetchResult.retryAfter`): put back in the queue to
    /// wait that long, for whichever worker is free then, unless the item has had its tries.
    /// True when it was handed back (then it is no result of this run).
    func handBack(_ result: FetchResult) -> Bool {
        guard result.outcome == .failed, let delay = result.retryAfter else { return false }
        lock.lock()
        guard let item = held[result.url], item.attempts + 1 < maxAttempts else {
            lock.unlock()
            return false
        }
        held.removeValue(forKey: result.url)
        let lastOne = held.isEmpty && batch.isEmpty
        if lastOne { nextLook = 0 }
        let room = madeRoom()
        lock.unlock()
        // This worker's last item (`nothingClaimable`), or room for the next batch: the engine
        // woken to look again.
        defer { if lastOne || room { onInput() } }
        do {
            return try retry.run { try queue.retryLater(worker: worker, item: item.id, delay: delay, reason: result.reason ?? "failed") }
        } catch {
            lock.withLock { failure = failure ?? error }
            onInput()
            return true  // not reported: its claim returns when the lease runs out
        }
    }

    /// Told of every result the run reports.
    func finish(_ result: FetchResult) {
        lock.lock()
        guard let item = held.removeValue(forKey: result.url) else {
            lock.unlock()
            return
        }
        if result.unrecorded {
            // Not recorded (the run stopped): released at the end, for another worker.
            held[result.url] = item
            lock.unlock()
            return
        }
        let room = madeRoom()
        defer { if room { onInput() } }
        var flushNow = false
        if result.outcome == .failed {
            let lastOne = held.isEmpty && batch.isEmpty
            if lastOne { nextLook = 0 }
            lock.unlock()
            defer { if lastOne { onInput() } }
            do {
                _ = try retry.run { try queue.fail(worker: worker, item: item.id, reason: result.reason ?? "failed") }
            } catch {
                // Not recorded as failed: the run stops; the item returns when the lease runs out.
                lock.withLock { failure = failure ?? error }
                onInput()
            }
            return
        }
        completions.append(WorkCompletion(id: item.id, outcome: result.outcome.rawValue))
        // This worker's last item: sent now, and the engine woken to see whether the lists are
        // finished (instead of at its next look, up to a second later).
        let lastOne = held.isEmpty && batch.isEmpty
        if lastOne { nextLook = 0 }
        flushNow = completions.count >= 64 || lastOne
        lock.unlock()
        if flushNow { sendCompletions() }
        if lastOne { onInput() }
    }

    /// Whether the engine waits for room (`poll`) and an item just finished made it: then it is
    /// to be woken (`onInput`, outside the lock). Under the lock.
    private func madeRoom() -> Bool {
        guard waitingForRoom, held.count < claimBatch else { return false }
        waitingForRoom = false
        return true
    }

    /// Sends the completions gathered so far (one round trip).
    private func sendCompletions() {
        let pending = lock.withLock { () -> [WorkCompletion] in
            defer { completions.removeAll(keepingCapacity: true) }
            return completions
        }
        guard !pending.isEmpty else { return }
        do {
            try retry.run { _ = try queue.complete(worker: worker, items: pending) }
        } catch {
            // Not completed: the items return when the lease runs out, and are skipped as
            // archived by whoever claims them.
            lock.withLock { failure = failure ?? error }
            onInput()
        }
    }

    private func scheduleRenewal() {
        timer.async(on: strand, after: lease / 3) { [weak self] in
            guard let self, !self.lock.withLock({ self.stopped }) else { return }
            self.sendCompletions()
            do {
                try self.retry.run { _ = try self.queue.renew(worker: self.worker, lease: self.lease) }
            } catch {
                self.lock.withLock { self.failure = self.failure ?? error }
                self.onInput()
            }
            self.scheduleRenewal()
        }
    }

    func stop() {
        lock.withLock { stopped = true }
    }

    func knownSource(of item: FetchItem) -> SourceRecord?? {
        lock.withLock {
            guard item.url == item.recordedURL, looked.remove(item.url) != nil else { return nil }
            return .some(sources.removeValue(forKey: item.url))
        }
    }

    /// The end of the run: completions sent, everything still held let go at once.
    func close() throws {
        stop()
        sendCompletions()
        try retry.run { _ = try queue.release(worker: worker) }
    }
}
