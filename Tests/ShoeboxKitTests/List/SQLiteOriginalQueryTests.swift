import CSQLite
import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// `shoebox list`'s queries on the SQLite catalog (OriginalQueryContract), the indexes they
/// use, and the in-memory reference they are compared with.
final class SQLiteOriginalQueryTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "original-query-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private var path: String { folder + "/catalog.sqlite" }
    private var contract: OriginalQueryContract {
        let path = path
        return OriginalQueryContract(open: { try SQLiteCatalog(path: path) })
    }

    func testOrders() throws { try contract.checkOrders() }
    func testCaptureDates() throws { try contract.checkCaptureDates() }
    func testPlaces() throws { try contract.checkPlaces() }
    func testCameraFormatDatingAndSources() throws { try contract.checkCameraFormatDatingAndSources() }
    func testLimitsAndStopping() throws { try contract.checkLimitsAndStopping() }
    func testAgreesWithTheDefinition() throws { try contract.checkAgreesWithTheDefinition() }

    /// The in-memory reference passes the same contract (so agreeing with it means something).
    func testReferenceKeepsTheContract() throws {
        let reference = OriginalQueryContract(open: { InMemoryCatalog() })
        try reference.checkOrders()
        try reference.checkCaptureDates()
        try reference.checkPlaces()
        try reference.checkCameraFormatDatingAndSources()
        try reference.checkLimitsAndStopping()
    }

    /// A read-only reader gets the same answers (list opens the catalog read-only).
    func testReadOnlyReaderAnswers() throws {
        try contract.filled().close()
        let reader = try SQLiteCatalog(path: path, readOnly: true, checkIntegrity: false)
        defer { reader.close() }
        XCTAssertEqual(try OriginalQueryContract.names(reader, OriginalQuery(), limit: 3), ["old", "six", "five"])
    }

    /// The plans SQLite picks for the common filters seek an index instead of reading the table.
    func testCommonFiltersSeekAnIndex() throws {
        try contract.filled().close()
        let connection = try SQLiteConnection(path: path, readOnly: true)
        func plan(pass: Int = 0, _ change: (inout OriginalQuery) throws -> Void) throws -> String {
            var query = OriginalQuery()
            try change(&query)
            let statement = OriginalQuerySQL.statements(for: query, columns: CatalogSchema.originalColumns, dialect: .sqlite, limited: true)[pass]
            let values: [SQLiteValue] = statement.parameters.map {
                switch $0 {
                case .text(let text): return .text(text)
                case .real(let number): return .real(number)
                case .integer(let number): return .integer(number)
                }
            } + [.integer(10)]
            return try connection.query("EXPLAIN QUERY PLAN " + statement.sql, values) { $0.string(3) ?? "" }.joined(separator: "; ")
        }
        let all = try plan { _ in }
        XCTAssertTrue(all.contains("USING INDEX originals_taken_at"), all)
        XCTAssertTrue(try plan { try $0.setTaken(since: "2024", until: nil) }.contains("SEARCH originals USING INDEX originals_taken_at"))
        XCTAssertTrue(try plan { $0.sort = .added; $0.descending = true }.contains("originals_added_at"))
        XCTAssertTrue(try plan { $0.make = "nikon"; $0.sort = .path }.contains("SEARCH originals USING INDEX originals_make"))
        XCTAssertTrue(try plan { $0.model = "iphone"; $0.sort = .path }.contains("SEARCH originals USING INDEX originals_model"))
        XCTAssertTrue(try plan { $0.box = GeoBox(south: 1, west: 1, north: 2, east: 2); $0.sort = .path }
            .contains("SEARCH originals USING INDEX originals_position"))
        XCTAssertTrue(try plan { $0.sourceHost = "photos.example.com"; $0.sort = .path }.contains("SEARCH source_versions USING"))
        // The undated originals (second statement of a capture-time sort): by the narrow filter's
        // index when there is one, else by the capture-time index.
        XCTAssertTrue(try plan(pass: 1) { $0.box = GeoBox(south: 1, west: 1, north: 2, east: 2) }.contains("USING INDEX originals_position"))
        XCTAssertTrue(try plan(pass: 1) { $0.make = "canon" }.contains("USING INDEX originals_make"))
        XCTAssertTrue(try plan(pass: 1) { $0.contentTypes = ["image/png"] }.contains("USING INDEX originals_taken_at (taken_at=?)"))
    }

    /// A catalog made before the list indexes gets them from the next writer; a reader does not write.
    func testWriterAddsMissingIndexesAndReaderDoesNot() throws {
        try contract.filled().close()
        let plain = try SQLiteConnection(path: path, readOnly: false)
        for name in ["originals_taken_at", "originals_added_at", "originals_make", "originals_model", "originals_position"] {
            try plain.execute("DROP INDEX \(name)")
        }
        plain.close()
        func indexes() throws -> Set<String> {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            defer { connection.close() }
            return Set(try connection.query("SELECT name FROM sqlite_master WHERE type='index' AND name LIKE 'originals_%'") { $0.string(0) ?? "" })
        }
        let reader = try SQLiteCatalog(path: path, readOnly: true)
        XCTAssertEqual(try OriginalQueryContract.names(reader, OriginalQuery()), ["old", "six", "five", "paris", "fiji", "undated"],
                       "without the indexes, the same answer")
        reader.close()
        XCTAssertEqual(try indexes(), ["originals_folded_path", "originals_lens_unknown"])
        try SQLiteCatalog(path: path).close()
        XCTAssertEqual(try indexes(), ["originals_folded_path", "originals_lens_unknown", "originals_taken_at", "originals_added_at",
                                       "originals_make", "originals_model", "originals_position"])
    }
}
