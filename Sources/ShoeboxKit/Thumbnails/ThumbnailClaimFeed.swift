import Foundation

/// Hands a thumbs worker's threads the stale originals its `ThumbnailClaims` grant it, a batch
/// at a time, and keeps its claims alive meanwhile (a renewal every third of the lease, on a
/// thread of its own; from the handing out itself when no thread could be started).
///
/// Each worker starts at a random place in the list, so workers begun together mostly claim
/// different originals. Originals held by another live worker are offered again once the rest
/// is done, once a second for the whole worker (whichever of its threads is waiting), until
/// that worker finishes them or its lease runs out (it was killed): so the last worker left
/// finishes everything.
final class ThumbnailClaimFeed: @unchecked Sendable {
    private let count: Int
    private let path: (Int) -> String
    private let claims: ThumbnailClaims
    private let lease: Double
    private let batch: Int
    private let condition = NSCondition()
    private var order: [Int]
    private var cursor = 0
    private var granted: [Int] = []
    private var held: [Int] = []
    private var nextOffer = Date.distantPast
    private var stopping = false
    private var renewing = false
    /// Set from any thread, without the lock (a consumer called back from `next` itself).
    private let abandoned = ManagedAtomicFlag()
    /// When the claims were last renewed from `next` (no renewal thread).
    private var renewed = Date()
    /// How often held originals are offered again.
    static let retryInterval = 1.0
    /// Originals another worker finished (made or failed) while this one ran.
    private(set) var settledElsewhere = 0
    /// The claims' first failure (the connection is gone): the feed then hands out nothing.
    private(set) var error: Error?
    /// Called (the feed's lock held) before a thread waits for originals other workers hold:
    /// what this worker finished must be recorded first, or workers waiting for each other's
    /// unrecorded originals would wait for ever.
    var onWait: () -> Void = {}
    /// Called (the feed's lock held) with the originals other workers finished: over for this one.
    var onSettled: ([Int]) -> Void = { _ in }

    init(count: Int, path: @escaping (Int) -> String, claims: ThumbnailClaims, lease: Double, batch: Int,
         launcher: ThreadLauncher = .system) {
        self.count = count
        self.path = path
        self.claims = claims
        self.lease = lease
        self.batch = max(1, batch)
        let start = count > 0 ? Int.random(in: 0..<count) : 0
        order = Array(start..<count) + Array(0..<start)
        renewing = true
        if !launcher.start(name: "shoebox-renew", { [self] in renewLoop() }) { renewing = false }
    }

    /// The next original (index) this worker holds, nil when there is none left for it.
    func next() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !stopping && error == nil && !abandoned.isSet {
            renewIfNoThread()
            if !granted.isEmpty { return granted.removeFirst() }
            if cursor < order.count {
                let offered = Array(order[cursor..<min(cursor + batch, order.count)])
                cursor += offered.count
                offer(offered)
                continue
            }
            guard !held.isEmpty else { return nil }
            if Date() < nextOffer {
                onWait()
                _ = condition.wait(until: min(nextOffer, Date(timeIntervalSinceNow: Self.retryInterval)))
                continue
            }
            nextOffer = Date(timeIntervalSinceNow: Self.retryInterval)
            let again = held
            held = []
            for start in stride(from: 0, to: again.count, by: batch) where error == nil {
                offer(Array(again[start..<min(start + batch, again.count)]))
            }
        }
        return nil
    }

    /// Claims `indices` (the lock held): granted ones are queued, settled ones handed to
    /// `onSettled`, the rest kept for later.
    private func offer(_ indices: [Int]) {
        var byPath: [String: Int] = [:]
        for index in indices { byPath[path(index)] = index }
        do {
            let answer = try claims.claim(Array(byPath.keys), lease: lease)
            let grantedPaths = Set(answer.granted), settledPaths = Set(answer.settled)
            granted += indices.filter { grantedPaths.contains(path($0)) }
            held += indices.filter { !grantedPaths.contains(path($0)) && !settledPaths.contains(path($0)) }
            let settled = indices.filter { settledPaths.contains(path($0)) }
            settledElsewhere += settled.count
            if !settled.isEmpty { onSettled(settled) }
        } catch {
            self.error = error
            condition.broadcast()
        }
    }

    /// Without a renewal thread, the claims are renewed as items are handed out.
    private func renewIfNoThread() {
        guard !renewing, Date().timeIntervalSince(renewed) >= lease / 3 else { return }
        renewed = Date()
        try? claims.renew(lease: lease)
    }

    /// Hands out nothing more (Ctrl-C): threads waiting for held originals return at once.
    func cancel() {
        abandoned.set()
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Hands out nothing more, from a thread that may hold the feed's lock (a consumer called
    /// back from `next`): waiting threads notice within a second.
    func abandon() {
        abandoned.set()
    }

    /// Ends the renewals (the worker then records what it finished and releases the rest).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while renewing { condition.wait() }
        condition.unlock()
    }

    private func renewLoop() {
        condition.lock()
        while !stopping {
            _ = condition.wait(until: Date(timeIntervalSinceNow: lease / 3))
            guard !stopping else { break }
            condition.unlock()
            // A failed renewal is tried again on time (each call rides out a lost connection for
            // the retry bound; after that the worker's own claims fail too and the run stops).
            try? claims.renew(lease: lease)
            condition.lock()
        }
        renewing = false
        condition.broadcast()
        condition.unlock()
    }
}
