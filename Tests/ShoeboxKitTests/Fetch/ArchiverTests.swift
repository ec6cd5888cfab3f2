import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// The archiver in process, against the in-memory store and catalog: what a batch
/// records and publishes, and what a failure at each step leaves behind.
final class ArchiverTests: XCTestCase {
    private var store: InMemoryOriginalStore!
    private var catalog: InMemoryCatalog!
    private var journaled: [OriginalRecord] = []
    private var results: [FetchResult] = []
    private var archiver: Archiver!

    override func setUpWithError() throws {
        store = try InMemoryOriginalStore()
        catalog = InMemoryCatalog()
        journaled = []
        results = []
        archiver = Archiver(store: store, catalog: catalog, journal: { [unowned self] originals, _ in journaled += originals }) {
            [unowned self] in results.append($0)
        }
    }

    /// XCTest keeps every test case object until the run ends: let go of the store here so
    /// that its staging folder is removed after each test, not left in /tmp.
    override func tearDown() {
        archiver = nil
        store = nil
        catalog = nil
        super.tearDown()
    }

    private func jpeg(seed: String, date: String = "2022:03:04 05:06:07") -> Data { ArchiverInput.jpeg(seed: seed, date: date) }

    private func received(_ data: Data, url: String, into target: InMemoryOriginalStore? = nil) throws -> CompletedTransfer {
        try ArchiverInput.received(data, url: url, into: target ?? store)
    }

    func testABatchIsJournaledCommittedThenPublishedUnderItsCaptureDate() throws {
        let photo = jpeg(seed: "a")
        try archiver.accept(received(photo, url: "http://127.0.0.1:9/a.jpg"))
        XCTAssertEqual(store.paths, [], "nothing is published before the batch is committed")
        try archiver.flush()
        XCTAssertEqual(results.map(\.outcome), [.stored])
        XCTAssertEqual(results.first?.path, "originals/2022/03/04/a.jpg")
        XCTAssertEqual(store.contents(of: "originals/2022/03/04/a.jpg"), photo)
        XCTAssertEqual(journaled.map(\.path), ["originals/2022/03/04/a.jpg"])
        XCTAssertEqual(try catalog.countOriginals(), 1)
        XCTAssertEqual(try catalog.source(url: "http://127.0.0.1:9/a.jpg")?.sha256, results.first?.sha256)
        XCTAssertEqual(store.openStagingFiles, 0)
    }

    func testTheSameBytesTwiceInOneBatchAreOneOriginalAndTwoSources() throws {
        let photo = jpeg(seed: "same")
        try archiver.accept(received(photo, url: "http://127.0.0.1:9/one.jpg"))
        try archiver.accept(received(photo, url: "http://127.0.0.1:9/two.jpg"))
        try archiver.flush()
        XCTAssertEqual(results.map(\.outcome), [.stored, .duplicate])
        XCTAssertEqual(store.paths.count, 1)
        XCTAssertEqual(store.publishes.count, 1)
        XCTAssertEqual(try catalog.sources(sha256: try XCTUnwrap(results.first?.sha256)).count, 2)
        XCTAssertEqual(store.openStagingFiles, 0, "the duplicate's staging file was dropped")
    }

    func testAFailedCommitPublishesNothingAndReportsEveryResultFailed() throws {
        try archiver.accept(received(jpeg(seed: "x"), url: "http://127.0.0.1:9/x.jpg"))
        try archiver.accept(received(jpeg(seed: "y"), url: "http://127.0.0.1:9/y.jpg"))
        catalog.failNextCommit = InMemoryCatalog.Failure(description: "database went away")
        XCTAssertThrowsError(try archiver.flush())
        XCTAssertEqual(results.map(\.outcome), [.failed, .failed])
        XCTAssertTrue(results.allSatisfy { ($0.reason ?? "").contains("database went away") }, "\(results.map(\.reason))")
        XCTAssertEqual(store.paths, [], "nothing published for a batch that was not recorded")
        XCTAssertEqual(try store.pendingStaged(), [], "its staged content was dropped")
        XCTAssertEqual(try catalog.countOriginals(), 0)
    }

    func testAPublishThatFailsAfterTheCommitWarnsAndLeavesTheContentStagedForRecovery() throws {
        let photo = jpeg(seed: "late")
        store.failPublish = ["originals/2022/03/04/late.jpg"]
        try archiver.accept(received(photo, url: "http://127.0.0.1:9/late.jpg"))
        try archiver.flush()
        XCTAssertEqual(results.map(\.outcome), [.stored], "recorded: the next run finishes it")
        XCTAssertNotNil(results.first?.notInPlace)
        let sha = try XCTUnwrap(results.first?.sha256)
        XCTAssertEqual(try store.pendingStaged(), [sha])
        store.failPublish = []
        let report = try LibraryRecovery.run(store: store, catalog: catalog)
        XCTAssertEqual(report.published, 1)
        XCTAssertEqual(store.contents(of: "originals/2022/03/04/late.jpg"), photo)
    }

    func testAnHTMLBodyIsRejectedAndLeavesNothing() throws {
        let page = Data("<!doctype html><html><body>not here</body></html>".utf8)
        try archiver.accept(received(page, url: "http://127.0.0.1:9/page"))
        try archiver.flush()
        XCTAssertEqual(results.map(\.outcome), [.rejected])
        XCTAssertEqual(store.paths, [])
        XCTAssertEqual(store.openStagingFiles, 0)
        XCTAssertEqual(try catalog.countOriginals(), 0)
    }

    func testAnotherOriginalAtTheNameGetsASuffixedPath() throws {
        store.put(Data("other bytes".utf8), at: "originals/2022/03/04/a.jpg")
        try archiver.accept(received(jpeg(seed: "new"), url: "http://127.0.0.1:9/a.jpg"))
        try archiver.flush()
        XCTAssertEqual(results.map(\.outcome), [.stored])
        XCTAssertNotEqual(results.first?.path, "originals/2022/03/04/a.jpg")
        XCTAssertEqual(store.contents(of: "originals/2022/03/04/a.jpg"), Data("other bytes".utf8), "never replaced")
    }

    func testAStoreThatWentAwayStopsTheRunAfterTheBatchIsRecorded() throws {
        store.unavailable = true
        try archiver.accept(received(jpeg(seed: "p"), url: "http://127.0.0.1:9/p.jpg"))
        try archiver.accept(received(jpeg(seed: "q"), url: "http://127.0.0.1:9/q.jpg"))
        XCTAssertThrowsError(try archiver.flush()) { error in
            XCTAssertEqual((error as? StoreUnavailable)?.storeIsUnavailable, true, "\(error)")
        }
        XCTAssertEqual(results.map(\.outcome), [.stored, .stored], "recorded, reported, then the run stops")
        XCTAssertTrue(results.allSatisfy { $0.notInPlace != nil })
        XCTAssertEqual(try catalog.countOriginals(), 2)
        XCTAssertEqual(try store.pendingStaged().count, 2, "kept staged for the next run")
    }

    // MARK: A catalog shared by several writers: publish, then commit

    private func sharedArchiver(store: OriginalStore? = nil, _ results: @escaping (FetchResult) -> Void) -> Archiver {
        Archiver(store: store ?? self.store, catalog: catalog, journal: nil, publishFirst: true, emit: results)
    }

    func testWithASharedCatalogABatchIsPublishedBeforeItIsCommitted() throws {
        var order: [String] = []
        let archiver = sharedArchiver { [unowned self] in
            order.append("reported with \(try! catalog.countOriginals()) rows")
            results.append($0)
        }
        let photo = jpeg(seed: "shared")
        try archiver.accept(received(photo, url: "http://127.0.0.1:9/s.jpg"))
        catalog.failNextCommit = InMemoryCatalog.Failure(description: "database went away")
        XCTAssertThrowsError(try archiver.flush())
        XCTAssertEqual(store.publishes.map(\.path), ["originals/2022/03/04/s.jpg"], "published before the commit was tried")
        XCTAssertEqual(store.paths, [], "a batch whose commit failed leaves nothing in place: its object is nobody's")
        XCTAssertEqual(results.map(\.outcome), [.failed])
        XCTAssertEqual(try catalog.countOriginals(), 0)

        results = []
        try archiver.accept(received(photo, url: "http://127.0.0.1:9/s.jpg"))
        try archiver.flush()
        XCTAssertEqual(results.map(\.outcome), [.stored])
        XCTAssertEqual(store.contents(of: "originals/2022/03/04/s.jpg"), photo)
        XCTAssertEqual(order.last, "reported with 1 rows")
        XCTAssertEqual(try store.pendingStaged(), [], "nothing left staged: no row ever waits for staged bytes")
    }

    func testTwoWritersWithTheSameContentKeepOneOriginalAndTheSecondIsADuplicate() throws {
        var first: [FetchResult] = []
        var second: [FetchResult] = []
        // Two writers, each with its own staging, one set of originals and one catalog.
        let storeB = try InMemoryOriginalStore(sharingOriginalsWith: store)
        let writerA = sharedArchiver { first.append($0) }
        let writerB = sharedArchiver(store: storeB) { second.append($0) }
        let photo = jpeg(seed: "twice")
        // Both downloaded; B looked the content up before A committed (A's whole batch runs
        // while B publishes), so neither saw the other's row.
        try writerA.accept(received(photo, url: "http://127.0.0.1:9/a.jpg"))
        let fromB = try received(photo, url: "http://127.0.0.1:9/b.jpg", into: storeB)
        try writerB.accept(fromB)
        storeB.beforePublish = { _ in
            storeB.beforePublish = nil
            try writerA.flush()
        }
        try writerB.flush()
        XCTAssertEqual(first.map(\.outcome), [.stored])
        XCTAssertEqual(second.map(\.outcome), [.duplicate])
        XCTAssertEqual(second.first?.path, "originals/2022/03/04/a.jpg", "the duplicate names the original the other writer catalogued")
        XCTAssertEqual(storeB.publishes.map(\.path), ["originals/2022/03/04/b.jpg"], "B published its copy before its commit")
        XCTAssertEqual(store.paths, ["originals/2022/03/04/a.jpg"], "the second copy, published before the commit, was removed")
        XCTAssertEqual(try catalog.countOriginals(), 1)
        XCTAssertEqual(try catalog.sources(sha256: try XCTUnwrap(first.first?.sha256)).count, 2, "both URLs are recorded")
        XCTAssertEqual(try catalog.source(url: "http://127.0.0.1:9/b.jpg")?.outcome, .duplicate, "recorded as it is reported")
        XCTAssertEqual(try catalog.source(url: "http://127.0.0.1:9/a.jpg")?.outcome, .stored)
    }

    func testACommitWhoseAnswerWasLostIsRetriedAndReportedStored() throws {
        let archiver = sharedArchiver { [unowned self] in results.append($0) }
        let photo = jpeg(seed: "lost answer")
        try archiver.accept(received(photo, url: "http://127.0.0.1:9/l.jpg"))
        catalog.loseNextCommitAnswer = PostgresError.connectionLost(server: "127.0.0.1:9", detail: "server closed the connection")
        try archiver.flush()
        XCTAssertEqual(catalog.commits, 2, "committed, then committed again after the lost answer")
        XCTAssertEqual(results.map(\.outcome), [.stored], "its own row, not another writer's: stored, not a duplicate")
        XCTAssertEqual(results.first?.path, "originals/2022/03/04/l.jpg")
        XCTAssertEqual(store.contents(of: "originals/2022/03/04/l.jpg"), photo, "the object stays")
        XCTAssertEqual(try catalog.countOriginals(), 1)
    }

    func testContentAnotherWriterCataloguedBeforeTheBatchIsLookedUpIsNotPublishedAgain() throws {
        var first: [FetchResult] = []
        var second: [FetchResult] = []
        let storeB = try InMemoryOriginalStore(sharingOriginalsWith: store)
        let writerA = sharedArchiver { first.append($0) }
        let writerB = sharedArchiver(store: storeB) { second.append($0) }
        let photo = jpeg(seed: "later")
        try writerA.accept(received(photo, url: "http://127.0.0.1:9/a.jpg"))
        try writerB.accept(try received(photo, url: "http://127.0.0.1:9/b.jpg", into: storeB))
        // B's batch is looked up when it is flushed, after A committed: a duplicate, never sent.
        try writerA.flush()
        try writerB.flush()
        XCTAssertEqual(second.map(\.outcome), [.duplicate])
        XCTAssertEqual(second.first?.path, "originals/2022/03/04/a.jpg")
        XCTAssertTrue(storeB.publishes.isEmpty, "nothing published by B")
        XCTAssertEqual(storeB.openStagingFiles, 0, "B's download dropped")
        XCTAssertEqual(try storeB.pendingStaged(), [])
        XCTAssertEqual(try catalog.sources(sha256: try XCTUnwrap(first.first?.sha256)).count, 2)
    }

    func testWithASharedCatalogContentThatCouldNotBePublishedIsNotRecorded() throws {
        let archiver = sharedArchiver { [unowned self] in results.append($0) }
        store.unavailable = true
        try archiver.accept(received(jpeg(seed: "u"), url: "http://127.0.0.1:9/u.jpg"))
        XCTAssertThrowsError(try archiver.flush()) { error in
            XCTAssertEqual((error as? StoreUnavailable)?.storeIsUnavailable, true, "\(error)")
        }
        XCTAssertEqual(results.map(\.outcome), [.failed], "not in place, so not stored: the URL stays to be fetched")
        XCTAssertEqual(try catalog.countOriginals(), 0)
        XCTAssertNil(try catalog.source(url: "http://127.0.0.1:9/u.jpg"), "no source row: a rerun fetches it again")
        XCTAssertEqual(try store.pendingStaged(), [])
    }
}
