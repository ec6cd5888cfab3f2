import Foundation

/// How far a shared list has come, as one consistent snapshot, with every time read from the
/// database server's clock (`serverTime`): compare times with `serverTime`, never with this
/// machine's clock (machines' clocks differ).
///
/// Every item is in exactly one of done, failed, claimed, waiting and waitingForRetry:
/// `total == done + failed + claimed + waiting + waitingForRetry`.
public struct QueueStatus: Sendable, Equatable {
    /// A worker that claimed from this list and has not stopped cleanly (`release`): a worker
    /// killed without `release` stays listed, with `leaseExpired`, while it holds items and for
    /// an hour after its lease ran out (`WorkQueue.forgetWorkersAfter`).
    public struct Worker: Sendable, Equatable {
        public let id: String
        public let host: String
        public let pid: Int
        public let started: Date
        /// Its last claim or renewal.
        public let lastHeartbeat: Date
        /// Until when its last claim or renewal holds (per item, the item's own lease counts).
        public let leaseUntil: Date
        /// `leaseUntil` has passed: the worker is dead or stalled, and its claims that ran out
        /// are claimable by others.
        public let leaseExpired: Bool
        /// Items of this list it holds (live or run out, not yet taken over).
        public let claims: Int

        public init(
            id: String, host: String, pid: Int, started: Date, lastHeartbeat: Date, leaseUntil: Date,
            leaseExpired: Bool, claims: Int
        ) {
            self.id = id
            self.host = host
            self.pid = pid
            self.started = started
            self.lastHeartbeat = lastHeartbeat
            self.leaseUntil = leaseUntil
            self.leaseExpired = leaseExpired
            self.claims = claims
        }
    }

    public let list: ListIdentity
    /// Every entry of the list has been queued (false while a loader runs, or after one died).
    public let loaded: Bool
    /// A loader is at work on it now (false with `loaded` false: its loader stopped or died;
    /// the next `load` continues after `linesLoaded`).
    public let loaderActive: Bool
    /// The last line of the list the loaders committed.
    public let linesLoaded: Int
    /// URLs the loaders offered; `urlsOffered - total` were listed twice or already queued by
    /// another list (each URL is one item across the whole queue).
    public let urlsOffered: Int
    /// Items of this list.
    public let total: Int
    public let done: Int
    /// Given up on (`fail`).
    public let failed: Int
    /// Held by a worker under a lease that has not run out.
    public let claimed: Int
    /// Claimable now: never tried, released, due for retry, or claimed under a lease that ran out.
    public let waiting: Int
    /// Of `waiting`: items whose worker's lease ran out (a worker died or stalled).
    public let abandoned: Int
    /// Waiting for a retry time (`not_before`) still in the future.
    public let waitingForRetry: Int
    /// The earliest of those retry times.
    public let nextRetry: Date?
    /// The database server's clock when the snapshot was taken.
    public let serverTime: Date
    /// Ordered by start time, then id.
    public let workers: [Worker]

    public init(
        list: ListIdentity, loaded: Bool, loaderActive: Bool = false, linesLoaded: Int, urlsOffered: Int, total: Int,
        done: Int, failed: Int, claimed: Int, waiting: Int, abandoned: Int, waitingForRetry: Int, nextRetry: Date?, serverTime: Date,
        workers: [Worker]
    ) {
        self.list = list
        self.loaded = loaded
        self.loaderActive = loaderActive
        self.linesLoaded = linesLoaded
        self.urlsOffered = urlsOffered
        self.total = total
        self.done = done
        self.failed = failed
        self.claimed = claimed
        self.waiting = waiting
        self.abandoned = abandoned
        self.waitingForRetry = waitingForRetry
        self.nextRetry = nextRetry
        self.serverTime = serverTime
        self.workers = workers
    }

    /// Nothing left to do: loaded, and every item done or failed.
    public var isFinished: Bool { loaded && done + failed == total }

    /// Seconds from `serverTime` to `nextRetry` (0 when due), nil without one.
    public var nextRetryIn: Double? { nextRetry.map { max(0, $0.timeIntervalSince(serverTime)) } }

    /// Workers holding at least one claim under a lease that has not run out.
    public var workersHoldingLeases: Int { workers.filter { !$0.leaseExpired && $0.claims > 0 }.count }
}
