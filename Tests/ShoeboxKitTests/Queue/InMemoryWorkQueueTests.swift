import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// The fake work queue held to the `WorkQueue` contract, its clock moved by hand.
final class InMemoryWorkQueueTests: XCTestCase {
    private var contract: WorkQueueContract {
        let clock = InMemoryWorkQueue.Clock()
        let store = InMemoryWorkQueue.Store(clock: { clock.now })
        return WorkQueueContract(open: { InMemoryWorkQueue(store: store) }, pause: { clock.advance(by: $0) })
    }

    // Spelled out: XCTest on Linux does not find test methods of another type.
    func testLoadQueuesDistinctURLsInOrder() throws { try contract.checkLoadQueuesDistinctURLsInOrder() }
    func testURLSharedByTwoListsIsQueuedOnce() throws { try contract.checkURLSharedByTwoListsIsQueuedOnce() }
    func testRefusals() throws { try contract.checkRefusals() }
    func testOddURLsRoundTrip() throws { try contract.checkOddURLsRoundTrip() }
    func testConcurrentLoadersLoadOnce() throws { try contract.checkConcurrentLoadersLoadOnce() }
    func testKilledLoaderIsResumed() throws { try contract.checkKilledLoaderIsResumed() }
    func testLoadingElsewhereIsClaimable() throws { try contract.checkLoadingElsewhereIsClaimable() }
    func testCloseStopsAWaitingLoader() throws { try contract.checkCloseStopsAWaitingLoader() }
    func testConcurrentClaimersShareTheList() throws { try contract.checkConcurrentClaimersShareTheList() }
    func testExpiredLeaseIsTakenOver() throws { try contract.checkExpiredLeaseIsTakenOver() }
    func testKilledWorkerDropsOutOfStatus() throws { try contract.checkKilledWorkerDropsOutOfStatus() }
    func testReopen() throws { try contract.checkReopen() }
    func testRenewKeepsItems() throws { try contract.checkRenewKeepsItems() }
    func testRetryLaterWaitsItsDelay() throws { try contract.checkRetryLaterWaitsItsDelay() }
    func testReleaseReturnsItemsAtOnce() throws { try contract.checkReleaseReturnsItemsAtOnce() }
    func testStatusCountsAfterAScript() throws { try contract.checkStatusCountsAfterAScript() }
}
