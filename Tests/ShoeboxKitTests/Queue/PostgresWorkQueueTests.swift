import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// PostgresWorkQueue against a real PostgreSQL 15 server on 127.0.0.1 (one per class, a
/// fresh database per test): the `WorkQueue` contract shared with InMemoryWorkQueue, then
/// what only a server has (schema beside the catalog, plans, a terminated loader, scale).
final class PostgresWorkQueueTests: XCTestCase {
    nonisolated(unsafe) static var server: PostgresServer?
    nonisolated(unsafe) static var startError: Error?

    override class func setUp() {
        super.setUp()
        guard PostgresServer.isAvailable else { return }
        do {
            server = try PostgresServer()
        } catch {
            startError = error
        }
    }

    override class func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }

    private var server: PostgresServer!
    private var uri = ""

    override func setUpWithError() throws {
        guard PostgresServer.isAvailable else {
            throw XCTSkip("PostgreSQL 15 is not installed (bash .ci/install-deps installs it)")
        }
        if let error = Self.startError { throw error }
        server = try XCTUnwrap(Self.server)
        uri = try server.makeDatabase()
    }

    private var contract: WorkQueueContract {
        let uri = uri
        return WorkQueueContract(open: { try PostgresWorkQueue(uri: uri) }, pause: { Thread.sleep(forTimeInterval: $0) })
    }

    private var database: String { String(uri.split(separator: "/").last ?? "") }

    private func psql(_ sql: String) throws -> String { try server.psql(sql, database: database) }

    // MARK: The contract shared with InMemoryWorkQueue

    func testLoadQueuesDistinctURLsInOrder() throws { try contract.checkLoadQueuesDistinctURLsInOrder() }
    func testURLSharedByTwoListsIsQueuedOnce() throws { try contract.checkURLSharedByTwoListsIsQueuedOnce() }
    func testRefusals() throws { try contract.checkRefusals() }
    func testConcurrentLoadersLoadOnce() throws { try contract.checkConcurrentLoadersLoadOnce() }
    func testKilledLoaderIsResumed() throws { try contract.checkKilledLoaderIsResumed() }
    func testLoadingElsewhereIsClaimable() throws { try contract.checkLoadingElsewhereIsClaimable() }
    func testConcurrentClaimersShareTheList() throws { try contract.checkConcurrentClaimersShareTheList() }
    func testExpiredLeaseIsTakenOver() throws { try contract.checkExpiredLeaseIsTakenOver() }
    func testRenewKeepsItems() throws { try contract.checkRenewKeepsItems() }
    func testRetryLaterWaitsItsDelay() throws { try contract.checkRetryLaterWaitsItsDelay() }
    func testReleaseReturnsItemsAtOnce() throws { try contract.checkReleaseReturnsItemsAtOnce() }
    func testStatusCountsAfterAScript() throws { try contract.checkStatusCountsAfterAScript() }
}
