import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// A shared-queue worker's intake (`QueueIntake`) over the in-memory queue.
final class QueueIntakeTests: XCTestCase {
    /// A worker whose store is slower than its downloads does not claim its whole backlog: the
    /// next batch is claimed once fewer than a batch of the items handed out are unfinished,
    /// and the engine, told to wait meanwhile, is woken when one finishes.
    func testTheNextBatchIsClaimedOnlyOnceFewerThanABatchOfHandedOutItemsAreUnfinished() throws {
        let queue = InMemoryWorkQueue()
        let list = ListIdentity.ofBytes(Data("forty photos".utf8), name: "list.txt")
        try queue.load(list: list, entries: (1...40).map { (line: $0, url: "http://example.invalid/p\($0).jpg") }, batchSize: 100, wait: false)
        let wakeUps = LockedBox(0)
        let intake = QueueIntake(queue: queue, worker: WorkerIdentity(id: "w1", host: "here", pid: 1), lists: [list], claimBatch: 4,
                                 lease: 60, maxAttempts: 4, retry: ConnectionRetry(bound: 0),
                                 onInput: { wakeUps.update { $0 += 1 } })
        defer { intake.stop() }
        func next() -> FetchItem? {
            if case .entry(.url(let item)) = intake.poll() { return item }
            return nil
        }
        func waits() -> Bool {
            if case .waiting = intake.poll() { return true }
            return false
        }
        func finish(_ item: FetchItem) { intake.finish(FetchResult(url: item.recordedURL, origin: "list.txt", outcome: .stored)) }
        func claimed() throws -> Int { try XCTUnwrap(try queue.status(list: list, exact: true)).claimed }

        var handed = try (0..<4).map { _ in try XCTUnwrap(next()) }
        XCTAssertTrue(waits(), "four unfinished: no second batch yet")
        XCTAssertEqual(try claimed(), 4)
        XCTAssertEqual(wakeUps.current, 0)
        finish(handed.removeFirst())
        XCTAssertEqual(wakeUps.current, 1, "the engine is woken once there is room")
        handed += try (0..<4).map { _ in try XCTUnwrap(next()) }
        XCTAssertTrue(waits(), "three of the first batch and the second one unfinished")
        XCTAssertEqual(try claimed(), 7, "one done, seven held: less than two batches")
        finish(handed.removeFirst())
        XCTAssertEqual(wakeUps.current, 1, "six unfinished: no room yet")
        XCTAssertTrue(waits())
        for item in handed.prefix(3) { finish(item) }
        handed.removeFirst(3)
        XCTAssertEqual(wakeUps.current, 2, "three unfinished: room")
        XCTAssertNotNil(next(), "the third batch")
    }
}
