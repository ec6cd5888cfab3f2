import Foundation

/// A list of URLs shared by workers on several machines: each item is handed to one worker at
/// a time under a lease, comes back when the lease runs out, and ends done or failed once.
///
/// Items: one per distinct URL across the whole queue (the URL string as given, compared
/// byte for byte: the caller normalises if it wants `HTTP://x` and `http://x` to be one). A URL
/// listed twice, or in two lists, is queued once, by the first list that loads it.
///
/// Times (`not_before`, leases, heartbeats) come from the queue's own clock — the database
/// server's `now()` for `PostgresWorkQueue` — never from the workers', whose clocks differ.
/// Durations (`lease`, `delay`) are seconds, counted from that clock when the call arrives.
///
/// Races, and how each call settles them:
/// - `load` by several workers at once: one loads, in committed batches; the others wait for
///   it (or, with `wait: false`, return `.loadingElsewhere` and may claim what is committed).
///   A loader that dies leaves the list `loaded == false` with its last committed line
///   recorded: the next `load` continues after it; an entry queued twice is a no-op.
/// - `claim` by several workers at once: each item goes to one of them (rows locked and
///   skipped, `FOR UPDATE SKIP LOCKED`); a claimer never waits for another.
/// - A lease that runs out: its items become claimable by anyone. Until someone claims one,
///   the old holder still holds it (its late `renew` or `complete` works); once it is taken,
///   the old holder's `complete`, `retryLater` and `fail` on it are refused (they return
///   without it): the new holder's result is the one kept.
/// - `complete` / `retryLater` / `fail` racing a takeover: one of the two wins, by row lock;
///   the loser sees it refused (complete) or claims nothing (claim).
///
/// Every call is one round trip for PostgreSQL (claim and complete are batched): well under
/// one per URL with batches of tens of items.
///
/// A worker's life, as `fetch` on each machine would run it:
///
///     let list = try ListIdentity.ofFile(atPath: path)         // same bytes → same list
///     let me = WorkerIdentity.current()
///     try queue.load(list: list, entries: validEntries, batchSize: 5_000, wait: false)
///     let renewer = WorkLeaseRenewer(queue: secondConnection, worker: me, lease: 60, interval: 20)
///     renewer.start()
///     while true {
///         let items = try queue.claim(worker: me, list: list, limit: 50, lease: 60)
///         if items.isEmpty {
///             let status = try queue.status(list: list)!
///             if status.isFinished { break }
///             if !status.loaded {                              // its loader may have died
///                 try queue.load(list: list, entries: validEntries, batchSize: 5_000, wait: false)
///             }
///             sleep(until: status.nextRetryIn, or a few seconds)  // retries, others' leases
///             continue
///         }
///         … fetch them; then per item: complete (batched), retryLater(delay: Retry-After), or fail
///     }
///     renewer.stop(); try queue.release(worker: me)           // also on Ctrl-C
///
/// (`isFinished` is never true while another worker holds claims: a worker may also stop
/// when nothing is left but others' live claims, and let their leases decide.)
public protocol WorkQueue: AnyObject, Sendable {
    /// Queues the list's entries (`line` increasing, 1-based; the caller has dropped blank,
    /// comment and invalid lines) in batches of `batchSize`, each committed with the line it
    /// reached, so a loader killed midway leaves a resumable list. Idempotent: a loaded list
    /// returns `.alreadyLoaded` at once; an interrupted one is continued after its last
    /// committed line (earlier entries are read and skipped, not sent).
    ///
    /// `wait`: when another worker is loading the list, wait until it finishes (or dies, then
    /// continue its work) instead of returning `.loadingElsewhere`.
    @discardableResult
    func load(
        list: ListIdentity, entries: some Sequence<(line: Int, url: String)>, batchSize: Int, wait: Bool
    ) throws -> QueueLoadReport

    /// Up to `limit` items of `list` for `worker`, each leased for `lease` seconds: first
    /// items whose holder's lease ran out, then items due for retry (earliest first), then
    /// items never tried (in list order). Empty when nothing is claimable now, which is not
    /// the end of the list: see `status` (`isFinished`, `loaded`, `nextRetry`).
    /// Also records the worker (host, pid) and its heartbeat. A claim does not extend the
    /// worker's earlier claims: `renew` (or `WorkLeaseRenewer`) every third of the lease.
    func claim(worker: WorkerIdentity, list: ListIdentity, limit: Int, lease: Double) throws -> [WorkItem]

    /// Extends the lease of everything `worker` holds, and its heartbeat, to `lease` seconds
    /// from now. Returns the ids it still holds (an item taken over after its lease ran out
    /// is missing: its result will be refused).
    @discardableResult
    func renew(worker: WorkerIdentity, lease: Double) throws -> Set<Int64>

    /// Marks items done, where `worker` still holds them. Returns the ids that were (the
    /// others were taken over by another worker, or finished already: their result is not kept).
    @discardableResult
    func complete(worker: WorkerIdentity, items: [WorkCompletion]) throws -> Set<Int64>

    /// Puts a held item back to wait `delay` seconds (e.g. `Retry-After`; 0 for at once),
    /// counting an attempt and keeping `reason` as its last error. False if not held.
    @discardableResult
    func retryLater(worker: WorkerIdentity, item: Int64, delay: Double, reason: String) throws -> Bool

    /// Gives up on a held item for good, counting an attempt, with `reason`. False if not held.
    @discardableResult
    func fail(worker: WorkerIdentity, item: Int64, reason: String) throws -> Bool

    /// Makes a finished list's items claimable again, their tries counted afresh: its failed
    /// ones (`.failed`: a rerun tries them again, as a rerun without a shared catalog does) or
    /// every done and failed one (`.all`: `--refresh` revalidates the whole list). Only when
    /// the list is finished, nothing of it waiting or claimed: a pass under way is joined,
    /// never reopened, and workers starting together reopen it once. Returns how many items
    /// were reopened (0 for an unfinished or unknown list).
    @discardableResult
    func reopen(list: ListIdentity, _ scope: ReopenScope) throws -> Int

    /// A clean stop (end of work, Ctrl-C): every item `worker` holds is claimable again at
    /// once (no attempt counted), and the worker is marked stopped (gone from `status`).
    /// Returns how many items it let go.
    @discardableResult
    func release(worker: WorkerIdentity) throws -> Int

    /// The list's counts and workers, nil for a list never loaded. `exact: false` reads the
    /// done and failed counts from per-worker tallies kept by `complete` and `fail` (cost
    /// grows with the claimed and retry-waiting items, not with the list); `exact: true`
    /// counts every item of the list (a full scan of its rows: for checks, not for polling).
    func status(list: ListIdentity, exact: Bool) throws -> QueueStatus?
    /// Seconds after its lease ran out that `status` still lists a worker holding nothing of the
    /// list (3,600): one killed without `release` drops out then; one holding items stays listed.
    var forgetWorkersAfter: Double { get set }

    /// Ends this connection to the queue (a load in progress stops at its next batch, as if
    /// its process died); later calls throw `WorkQueueError.closed`. Claims stay held until
    /// their lease runs out: call `release` first for a clean stop.
    func close()
}

/// Which finished items `WorkQueue.reopen` makes claimable again.
public enum ReopenScope: Sendable {
    case failed
    case all
}

extension WorkQueue {
    /// Loads with batches of 5,000 entries, waiting for another loader.
    @discardableResult
    public func load(list: ListIdentity, entries: some Sequence<(line: Int, url: String)>) throws -> QueueLoadReport {
        try load(list: list, entries: entries, batchSize: 5_000, wait: true)
    }

    public func status(list: ListIdentity) throws -> QueueStatus? { try status(list: list, exact: false) }
}
