import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// The archiver on a real PostgreSQL catalog: a batch costs a fixed handful of round trips
/// (one lookup, one reservation, one insert of its originals, one of its sources…), however
/// many URLs it holds, and is recorded exactly as one call per URL would record it.
final class ArchiverRoundTripTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private func jpeg(seed: String) -> Data { ArchiverInput.jpeg(seed: seed) }

    private func received(_ data: Data, url: String, into store: OriginalStore) throws -> CompletedTransfer {
        try ArchiverInput.received(data, url: url, into: store)
    }

    func testABatchCostsTheSameFewRoundTripsWhateverItsSize() throws {
        let catalog = try PostgresCatalog(uri: try Self.postgres.running().makeDatabase())
        defer { catalog.close() }
        let store = try InMemoryOriginalStore()
        // As an object store: names are known to the catalog only, so taken ones are refused there.
        store.existenceIsCheap = false
        var results: [FetchResult] = []
        let archiver = Archiver(store: store, catalog: catalog, journal: nil, publishFirst: true) { results.append($0) }

        /// Archives `count` new photos in one batch, plus two that collide: a second content
        /// under the first one's name, and the first one's bytes under another URL. Returns the
        /// round trips its flush took.
        func batch(_ name: String, count: Int) throws -> Int {
            for index in 0..<count {
                try archiver.accept(received(jpeg(seed: "\(name)-\(index)"), url: "http://127.0.0.1:9/\(name)/\(index).jpg", into: store))
            }
            try archiver.accept(received(jpeg(seed: "\(name)-other"), url: "http://127.0.0.2:9/\(name)/0.jpg", into: store))
            try archiver.accept(received(jpeg(seed: "\(name)-0"), url: "http://127.0.0.1:9/\(name)/copy.jpg", into: store))
            let before = catalog.roundTrips
            try archiver.flush()
            return catalog.roundTrips - before
        }

        let first = try batch("a", count: 20)
        XCTAssertEqual(results.map(\.outcome), Array(repeating: .stored, count: 21) + [.duplicate], "\(results.compactMap(\.reason))")
        XCTAssertEqual(results[0].path, "originals/2022/03/04/0.jpg")
        XCTAssertEqual(results[20].path, "originals/2022/03/04/0-2.jpg", "the name taken in the same batch")
        XCTAssertEqual(results[21].path, results[0].path, "the copy names the original")

        results = []
        let second = try batch("b", count: 60)
        XCTAssertEqual(results.map(\.outcome), Array(repeating: .stored, count: 61) + [.duplicate])
        XCTAssertEqual(results[0].path, "originals/2022/03/04/0-3.jpg", "taken by the first batch's originals")
        XCTAssertEqual(results[1].path, "originals/2022/03/04/1-2.jpg")
        XCTAssertEqual(results[60].path, "originals/2022/03/04/0-4.jpg", "taken by the first batch and earlier in this one")
        // Statements are prepared once per session: the second batch shows the steady cost.
        XCTAssertLessThanOrEqual(second, 16, "round trips for 62 URLs (first batch of 22: \(first))")
        XCTAssertLessThan(Double(second) / 62, 0.3)

        // Everything recorded as one call per URL would record it.
        XCTAssertEqual(try catalog.countOriginals(), 82)
        XCTAssertEqual(try catalog.countSources(), 84)
        for result in results {
            let original = try XCTUnwrap(try catalog.original(path: try XCTUnwrap(result.path)))
            XCTAssertEqual(try catalog.source(url: result.url)?.sha256, original.sha256, result.url)
            XCTAssertEqual(store.contents(of: original.path).map(ArchiverInput.sha256), original.sha256, original.path)
        }
        XCTAssertEqual(try catalog.staleReservations(olderThan: 0), [], "the batches' reservations are released")

        // The same URLs again (a --refresh without validators): unchanged, one lookup for the batch.
        results = []
        for index in 0..<60 {
            try archiver.accept(received(jpeg(seed: "b-\(index)"), url: "http://127.0.0.1:9/b/\(index).jpg", into: store))
        }
        let before = catalog.roundTrips
        try archiver.flush()
        XCTAssertEqual(results.map(\.outcome), Array(repeating: .unchanged, count: 60))
        XCTAssertLessThanOrEqual(catalog.roundTrips - before, 12)
        XCTAssertEqual(try catalog.countOriginals(), 82)
    }
}
