import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// `shoebox list`'s queries on a PostgreSQL catalog (a real server on 127.0.0.1, a fresh
/// database per test): the same OriginalQueryContract as SQLite, on a database whose default
/// collation would order text otherwise.
final class PostgresOriginalQueryTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private var server: PostgresServer!
    private var uri = ""

    override func setUpWithError() throws {
        guard PostgresServer.isAvailable else {
            throw XCTSkip("PostgreSQL 15 is not installed (bash .ci/install-deps installs it)")
        }
        server = try Self.postgres.running()
        uri = try server.makeDatabase(icuLocale: "en-US")
    }

    private var contract: OriginalQueryContract {
        let uri = uri
        return OriginalQueryContract(open: { try PostgresCatalog(uri: uri) })
    }

    func testOrders() throws { try contract.checkOrders() }
    func testCaptureDates() throws { try contract.checkCaptureDates() }
    func testPlaces() throws { try contract.checkPlaces() }
    func testCameraFormatDatingAndSources() throws { try contract.checkCameraFormatDatingAndSources() }
    func testLimitsAndStopping() throws { try contract.checkLimitsAndStopping() }
    func testAgreesWithTheDefinition() throws { try contract.checkAgreesWithTheDefinition() }

    /// A catalog made before the list indexes gets them from the next process that opens it.
    func testMissingIndexesAreAdded() throws {
        try contract.filled().close()
        for name in ["originals_taken_at", "originals_added_at", "originals_make", "originals_model", "originals_position"] {
            _ = try server.psql("DROP INDEX \(name)", database: database)
        }
        let count = "SELECT count(*) FROM pg_indexes WHERE indexname IN ('originals_taken_at','originals_position')"
        XCTAssertEqual(try server.psql(count, database: database).trimmingCharacters(in: .whitespacesAndNewlines), "0")
        let catalog = try PostgresCatalog(uri: uri)
        XCTAssertEqual(try OriginalQueryContract.names(catalog, OriginalQuery(), limit: 2), ["old", "six"])
        catalog.close()
        XCTAssertEqual(try server.psql(count, database: database).trimmingCharacters(in: .whitespacesAndNewlines), "2")
    }

    private var database: String { String(uri.split(separator: "/").last ?? "") }
}
