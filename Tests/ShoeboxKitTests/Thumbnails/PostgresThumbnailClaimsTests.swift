import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// PostgresThumbnailClaims against a real PostgreSQL 15 on 127.0.0.1 (one server for the class,
/// a database per test): how thumbs workers on several machines divide the originals.
final class PostgresThumbnailClaimsTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private var uri = ""
    private let paths = (0..<40).map { String(format: "originals/2024/05/01/IMG_%04d.jpg", $0) }

    override func setUpWithError() throws {
        uri = try Self.postgres.running().makeDatabase()
    }

    private func worker(_ name: String, job: String = "256 jpeg q80 inside stripped r2") throws -> PostgresThumbnailClaims {
        let claims = try PostgresThumbnailClaims(uri: uri, job: job, worker: WorkerIdentity(id: name, host: "h", pid: 1))
        try claims.begin()
        return claims
    }

    func testWorkersAreGrantedDisjointOriginalsAndOthersFinishedWorkIsSettled() throws {
        let first = try worker("a")
        let second = try worker("b")
        let one = try first.claim(Array(paths[0..<20]), lease: 60)
        XCTAssertEqual(Set(one.granted), Set(paths[0..<20]))
        let two = try second.claim(Array(paths[10..<30]), lease: 60)
        XCTAssertEqual(Set(two.granted), Set(paths[20..<30]), "what the first holds is not granted")
        XCTAssertEqual(two.settled, [], "held, not finished: to be offered again")
        // A claim repeated (its answer lost with the connection) grants again what it granted.
        XCTAssertEqual(Set(try first.claim(Array(paths[0..<20]), lease: 60).granted), Set(paths[0..<20]))

        try first.finish(done: Array(paths[0..<5]), failed: [paths[5]])
        let again = try second.claim(Array(paths[0..<10]), lease: 60)
        XCTAssertEqual(again.granted, [])
        XCTAssertEqual(Set(again.settled), Set(paths[0..<6]), "made or failed by another since this worker began")
        // A worker finishes only what it holds.
        try second.finish(done: Array(paths[6..<10]), failed: [])
        let third = try worker("c")
        XCTAssertEqual(Set(try third.claim(Array(paths[6..<10]), lease: 60).granted), [], "still the first's")

        // Another job (other sizes or settings) does not wait for this one.
        let other = try worker("d", job: "1024 jpeg q80 inside stripped r2")
        XCTAssertEqual(Set(try other.claim(Array(paths[0..<20]), lease: 60).granted), Set(paths[0..<20]))
    }

    func testAWorkerBegunAfterOriginalsWereFinishedTakesThemAgainAndFailuresAreRetriedByTheNextRun() throws {
        let first = try worker("a")
        XCTAssertEqual(Set(try first.claim(Array(paths[0..<4]), lease: 60).granted), Set(paths[0..<4]))
        try first.finish(done: Array(paths[0..<2]), failed: Array(paths[2..<4]))
        // Begun after: what it still finds stale (--force, a failure) is its to make.
        let later = try worker("b")
        let answer = try later.claim(Array(paths[0..<4]), lease: 60)
        XCTAssertEqual(Set(answer.granted), Set(paths[0..<4]))
        XCTAssertEqual(answer.settled, [])
    }

    func testClaimsOfAWorkerThatStopsRenewingReturnWhenTheLeaseRunsOutAndReleaseFreesThemAtOnce() throws {
        let dead = try worker("dead")
        let live = try worker("live")
        XCTAssertEqual(Set(try dead.claim(Array(paths[0..<10]), lease: 1.5).granted), Set(paths[0..<10]))
        XCTAssertEqual(Set(try live.claim(Array(paths[0..<20]), lease: 60).granted), Set(paths[10..<20]))
        // Renewed, the live worker's claims outlast their first lease.
        try live.renew(lease: 60)
        Thread.sleep(forTimeInterval: 2)
        let late = try worker("late")
        XCTAssertEqual(Set(try late.claim(Array(paths[0..<20]), lease: 60).granted), Set(paths[0..<10]),
                       "the dead worker's claims, not the live one's")
        try live.release()
        XCTAssertEqual(Set(try late.claim(Array(paths[10..<20]), lease: 60).granted), Set(paths[10..<20]), "released at once")
        // A finish from the dead worker changes nothing any more: the claims are the late worker's.
        try dead.finish(done: Array(paths[0..<10]), failed: [])
        try late.finish(done: Array(paths[0..<20]), failed: [])
        let database = String(uri.split(separator: "/").last ?? "")
        let rows = try Self.postgres.running().psql("SELECT worker || ' ' || state || ' ' || count(*) FROM thumbnail_claims GROUP BY worker, state",
                                                    database: database)
        XCTAssertEqual(rows.split(separator: "\n").map(String.init), ["late done 20"])
    }

    func testManyWorkersClaimingTheSameOriginalsAtOnceNeverShareOne() throws {
        let uri = uri, paths = paths
        let granted = LockedBox([String: Int]())
        let failures = LockedBox([String]())
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            do {
                let claims = try PostgresThumbnailClaims(uri: uri, job: "256", worker: WorkerIdentity(id: "w\(index)", host: "h", pid: index))
                try claims.begin()
                // Each offers all originals in its own order, in batches of 8, as workers begun together do.
                let split: Int = (index * 7) % paths.count
                let order: [String] = Array(paths[split...]) + Array(paths[..<split])
                for start in stride(from: 0, to: order.count, by: 8) {
                    for path in try claims.claim(Array(order[start..<min(start + 8, order.count)]), lease: 60).granted {
                        granted.update { $0[path, default: 0] += 1 }
                    }
                }
            } catch {
                failures.update { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.current, [])
        XCTAssertEqual(Set(granted.current.keys), Set(paths), "every original granted")
        XCTAssertEqual(granted.current.values.filter { $0 != 1 }, [], "none granted twice")
    }

    /// Two updaters sharing claims on one library, small batches so they hold each other's
    /// originals, neither with a thread of its own (the calling thread renders, renews and
    /// records, and must record what it made before it waits for the other's): both end, and
    /// each original is made once.
    func testTwoUpdatersWithoutThreadsShareTheWorkAndNeitherWaitsForEver() throws {
        let library = try TestLibrary(self)
        let colors = ["red", "green", "blue", "white"]
        for index in 0..<12 {
            let path = String(format: "originals/2024/05/%02d/IMG_%04d.jpg", index % 28 + 1, index)
            try ImageFixtures.solid(at: try library.prepare(path), width: 90 + index, height: 60, color: colors[index % colors.count])
            try library.add(path)
        }
        let options = ThumbnailOptions(sizes: [.init(width: 32, height: 32)], jobs: 2)
        let job = ThumbnailUpdater.job(options)
        var updaters: [ThumbnailUpdater] = []
        for name in ["first", "second"] {
            let catalog = try SQLiteCatalog(path: library.root + "/catalog.sqlite")
            let claims = try PostgresThumbnailClaims(uri: uri, job: job, worker: WorkerIdentity(id: name, host: "h", pid: 1))
            let updater = ThumbnailUpdater(libraryRoot: library.root, catalog: catalog, options: options, claims: claims)
            updater.engine.claimBatch = 2
            updater.engine.lease = 30
            updater.engine.launcher = .refusing(after: 0)
            updaters.append(updater)
        }
        let summaries = LockedBox([String: ThumbnailSummary]())
        let errors = LockedBox([String]())
        let done = DispatchGroup()
        for (index, updater) in updaters.enumerated() {
            done.enter()
            Thread.detachNewThread {
                do {
                    let summary = try updater.run(prune: false)
                    summaries.update { $0["\(index)"] = summary }
                } catch {
                    errors.update { $0.append("\(error)") }
                }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "both workers end")
        XCTAssertEqual(errors.current, [])
        let made = summaries.current.values.map(\.made)
        XCTAssertEqual(made.reduce(0, +), 12, "each original made once: \(summaries.current)")
        XCTAssertEqual(summaries.current.values.map(\.failed), [0, 0])
        XCTAssertEqual(try library.catalog.allThumbnails().count, 12)
    }
}
