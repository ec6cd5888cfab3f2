import Foundation

/// Hands a thumbs worker's threads the stale originals its `ThumbnailClaims` grant it, a batch
/// at a time, and keeps its claims alive meanwhile (a renewal every third of the lease, on a
/// thread of its own).
///
/// Each worker starts at a random place in the list, so workers begun together mostly claim
/// different originals. Originals held by another live worker are offered again once the rest
/// is done, once a second, until that worker finishes them or its lease runs out (it was
/// killed): so the last worker left finishes everything.
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
    private var stopping = false
    private var renewing = false
    /// How often held originals are offered again.
    static let retryInterval = 1.0
    /// Originals another worker finished while this one ran.
    private(set) var settledElsewhere = 0
    /// The claims' first failure (the connection is gone): the feed then hands out nothing.
    private(set) var error: Error?
    /// Called (the feed's lock held) before a thread waits for originals other workers hold:
    /// what this worker finished must be recorded first, or workers waiting for each other's
    /// unrecorded originals would wait for ever.
    var onWait: () -> Void = {}

    init(count: Int, path: @escaping (Int) -> String, claims: ThumbnailClaims, lease: Double, batch: Int) {
        self.count = count
        self.path = path
        self.claims = claims
        self.lease = lease
        self.batch = max(1, batch)
        let start = count > 0 ? Int.random(in: 0..<count) : 0
        order = Array(start..<count) + Array(0..<start)
        renewing = ThreadLauncher.system.start(name: "shoebox-renew") { [self] in renewLoop() }
    }

    /// The next original (index) this worker holds, nil when there is none left for it.
    func next() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !stopping && error == nil {
            if !granted.isEmpty { return granted.removeFirst() }
            if cursor < order.count {
                let offered = Array(order[cursor..<min(cursor + batch, order.count)])
                cursor += offered.count
                offer(offered)
                continue
            }
            guard !held.isEmpty else { return nil }
            onWait()
            _ = condition.wait(until: Date(timeIntervalSinceNow: Self.retryInterval))
            guard !stopping, error == nil, granted.isEmpty else { continue }
            let again = held
            held = []
            for start in stride(from: 0, to: again.count, by: batch) where error == nil {
                offer(Array(again[start..<min(start + batch, again.count)]))
            }
        }
        return nil
    }

    /// Claims `indices` (the lock held): granted ones are queued, settled ones dropped, the rest kept for later.
    private func offer(_ indices: [Int]) {
        var byPath: [String: Int] = [:]
        for index in indices { byPath[path(index)] = index }
        do {
            let answer = try claims.claim(Array(byPath.keys), lease: lease)
            let grantedPaths = Set(answer.granted), settledPaths = Set(answer.settled)
            granted += indices.filter { grantedPaths.contains(path($0)) }
            held += indices.filter { !grantedPaths.contains(path($0)) && !settledPaths.contains(path($0)) }
            settledElsewhere += settledPaths.count
        } catch {
            self.error = error
            condition.broadcast()
        }
    }

    /// Hands out nothing more (Ctrl-C): threads waiting for held originals return at once.
    func cancel() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
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
            // A failed renewal is tried again on time; a claim lost meanwhile is at worst made twice.
            try? claims.renew(lease: lease)
            condition.lock()
        }
        renewing = false
        condition.broadcast()
        condition.unlock()
    }
}
