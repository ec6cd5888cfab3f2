import Foundation
import ShoeboxKit
import XCTest

/// The `Catalog` contract (CatalogContract) against SQLiteCatalog: the same assertions as
/// PostgresCatalogTests runs against PostgreSQL.
final class SQLiteCatalogContractTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "catalog-contract-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private var contract: CatalogContract {
        let path = folder + "/catalog.sqlite"
        return CatalogContract(open: { try SQLiteCatalog(path: path) }) { error in
            if case CatalogError.constraint = error { return true }
            return false
        }
    }

    func testRoundTrips() throws { try contract.checkRoundTrips() }
    func testInsertConflicts() throws { try contract.checkInsertConflicts() }
    func testInsertIfAbsent() throws { try contract.checkInsertIfAbsent() }
    func testConcurrentInsertIfAbsent() throws { try contract.checkConcurrentInsertIfAbsent() }
    func testRollback() throws { try contract.checkRollback() }
    func testNestedTransactions() throws { try contract.checkNestedTransactions() }
    func testPagedCursor() throws { try contract.checkPagedCursor() }
    func testSourcesBySHA() throws { try contract.checkSourcesBySHA() }
    func testSourceVersions() throws { try contract.checkSourceVersions() }
    func testThumbnails() throws { try contract.checkThumbnails() }
    func testPathReservations() throws { try contract.checkPathReservations() }
    func testBatchedSourceLookups() throws { try contract.checkBatchedSourceLookups() }
    func testBatchedOriginalsAndSources() throws { try contract.checkBatchedOriginalsAndSources() }
    func testBatchedPathReservations() throws { try contract.checkBatchedPathReservations() }
}
