import Foundation
@testable import ShoeboxKit
import XCTest

/// The values `shoebox list` takes, parsed in ShoeboxKit: dates, boxes, circles, formats,
/// datings, and the messages naming a bad one.
final class OriginalQueryParsingTests: XCTestCase {
    func testDatesAndTheirWholeSpans() throws {
        XCTAssertEqual(CalendarMoment(parsing: "2024-05-01")?.exifText, "2024:05:01 00:00:00")
        XCTAssertEqual(CalendarMoment(parsing: "2024-05-01T10:30:00")?.exifText, "2024:05:01 10:30:00")
        XCTAssertEqual(CalendarMoment(parsing: "2024-05-01 10:30")?.exifText, "2024:05:01 10:30:00")
        XCTAssertEqual(CalendarMoment(parsing: "1969-12-31")?.end?.exifText, "1970:01:01 00:00:00")
        XCTAssertEqual(CalendarMoment(parsing: "2024-02")?.end?.exifText, "2024:03:01 00:00:00")
        XCTAssertEqual(CalendarMoment(parsing: "2024-12")?.end?.exifText, "2025:01:01 00:00:00")
        XCTAssertEqual(CalendarMoment(parsing: "1965")?.end?.isoText, "1966-01-01T00:00:00Z")
        XCTAssertEqual(CalendarMoment(parsing: "2023-12-31T23:59:59")?.end?.exifText, "2024:01:01 00:00:00")
        XCTAssertEqual(CalendarMoment(parsing: "2024-02-29")?.end?.exifText, "2024:03:01 00:00:00", "a leap day")
        XCTAssertNil(CalendarMoment(parsing: "9999")?.end, "nothing comes after 9999")
        for bad in ["2024-13-01", "2023-02-29", "2024-04-31", "2024-05-01T24:00:00", "2024-5-1", "24-05-01", "", "yesterday",
                    "2024-05-01T10:30:00Z", "0000-01-01", "2024/05/01"] {
            XCTAssertNil(CalendarMoment(parsing: bad), bad)
        }
    }

    func testBadValuesNameTheOptionAndWhatToWrite() {
        var query = OriginalQuery()
        XCTAssertThrowsError(try query.setTaken(since: "2024-13-01", until: nil)) { error in
            XCTAssertEqual("\(error)", "--since 2024-13-01: not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (or YYYY-MM, YYYY)")
        }
        XCTAssertThrowsError(try query.setAdded(since: nil, until: "May")) { error in
            XCTAssertTrue("\(error)".hasPrefix("--added-until May: not a date"), "\(error)")
        }
        XCTAssertThrowsError(try query.setTaken(since: "2024-05-02", until: "2024-05-01")) { error in
            XCTAssertEqual(error as? OriginalQueryError,
                           .conflicting("--since 2024-05-02 is after --until 2024-05-01: nothing can match; give the earlier date to --since"))
        }
        XCTAssertNoThrow(try query.setTaken(since: "2024-05-01", until: "2024-05-01"), "one whole day")
        XCTAssertEqual(query.takenFrom, "2024:05:01 00:00:00")
        XCTAssertEqual(query.takenBefore, "2024:05:02 00:00:00")
        XCTAssertThrowsError(try GeoBox(parsing: "1,2,3")) { XCTAssertTrue("\($0)".hasPrefix("--bbox 1,2,3: not a box;"), "\($0)") }
        XCTAssertThrowsError(try GeoBox(parsing: "10,0,5,1")) { XCTAssertTrue("\($0)".contains("south edge"), "\($0)") }
        XCTAssertThrowsError(try GeoBox(parsing: "0,0,91,1"))
        XCTAssertThrowsError(try GeoBox(parsing: "nan,0,1,1"))
        XCTAssertThrowsError(try GeoBox(parsing: "1e1,0,20,1"))
        XCTAssertThrowsError(try GeoCircle(parsing: "48.8,2.3")) { XCTAssertTrue("\($0)".hasPrefix("--near 48.8,2.3: not a place"), "\($0)") }
        XCTAssertThrowsError(try GeoCircle(parsing: "48.8,2.3,-5km"))
        XCTAssertThrowsError(try GeoCircle(parsing: "48.8,2.3,5mi"))
        XCTAssertThrowsError(try OriginalQuery.contentType(forFormat: "doc")) { XCTAssertTrue("\($0)".hasPrefix("--format doc: not a format"), "\($0)") }
        XCTAssertThrowsError(try OriginalQuery.contentType(forFormat: "text/html"))
        XCTAssertThrowsError(try OriginalQuery.captureDateSource(named: "gps")) { XCTAssertTrue("\($0)".hasPrefix("--dated-by gps:"), "\($0)") }
        XCTAssertThrowsError(try GeoBox(parsing: "1,2,3\u{1B}[31m")) { XCTAssertTrue("\($0)".contains("\\x1B[31m"), "escape shown, not sent") }
    }

    func testNamesForFormatsAndDatings() throws {
        XCTAssertEqual(try OriginalQuery.contentType(forFormat: "JPG"), "image/jpeg")
        XCTAssertEqual(try OriginalQuery.contentType(forFormat: "jpeg"), "image/jpeg")
        XCTAssertEqual(try OriginalQuery.contentType(forFormat: "tif"), "image/tiff")
        XCTAssertEqual(try OriginalQuery.contentType(forFormat: "cr3"), "image/x-canon-cr3")
        XCTAssertEqual(try OriginalQuery.contentType(forFormat: "Image/PNG"), "image/png")
        XCTAssertEqual(try OriginalQuery.captureDateSource(named: "camera"), .exif)
        XCTAssertEqual(try OriginalQuery.captureDateSource(named: "server"), .lastModified)
        XCTAssertEqual(try OriginalQuery.captureDateSource(named: "download"), .fetchTime)
        XCTAssertEqual(try OriginalQuery.captureDateSource(named: "FILE-TIME"), .fileTime)
    }

    func testDistancesAndTheBoxAroundACircle() throws {
        let paris = try GeoCircle(parsing: "48.8566,2.3522,5km")
        XCTAssertEqual(paris.radius, 5000)
        XCTAssertEqual(try GeoCircle(parsing: "0,0,500m").radius, 500)
        XCTAssertEqual(try GeoCircle(parsing: "0,0,2").radius, 2000, "a bare number is km")
        // Paris to London, 343.5 km on the mean sphere.
        XCTAssertEqual(paris.distance(latitude: 51.5074, longitude: -0.1278) / 1000, 343.5, accuracy: 0.5)
        let box = paris.boundingBox
        XCTAssertTrue(box.contains(latitude: 48.8566 + 0.0449, longitude: 2.3522), "due north, 4.99 km")
        XCTAssertFalse(box.contains(latitude: 48.8566 + 0.0460, longitude: 2.3522))
        let dateline = try GeoCircle(parsing: "0,179.99,10km").boundingBox
        XCTAssertTrue(dateline.crossesAntimeridian)
        XCTAssertTrue(dateline.contains(latitude: 0, longitude: -179.99))
        let pole = try GeoCircle(parsing: "89.99,0,5km").boundingBox
        XCTAssertEqual(pole.west, -180)
        XCTAssertEqual(pole.east, 180)
        XCTAssertEqual(pole.north, 90)
    }

    func testPrefixRangesOfText() {
        XCTAssertEqual(OriginalQuerySQL.successor(of: "http://a/"), "http://a0")
        XCTAssertEqual(OriginalQuerySQL.successor(of: "x@", folded: true), "x[", "no A-Z among lower-cased text")
        XCTAssertEqual(OriginalQuerySQL.successor(of: "\u{D7FF}"), "\u{E000}")
        XCTAssertEqual(OriginalQuerySQL.successor(of: "a\u{10FFFF}"), "b")
        XCTAssertNil(OriginalQuerySQL.successor(of: ""))
    }

    /// Values reach the SQL as bound parameters, never as text of the statement.
    func testValuesAreBoundNotSpliced() throws {
        var query = OriginalQuery()
        query.make = "x' OR 1=1 --"
        query.urlPrefix = "http://a'b/"
        query.contentTypes = ["image/png"]
        for dialect in [OriginalQuerySQL.Dialect.sqlite, .postgres] {
            let statement = OriginalQuerySQL.statements(for: query, columns: "path", dialect: dialect, limited: true)[0]
            XCTAssertFalse(statement.sql.contains("'x") || statement.sql.contains("a'b") || statement.sql.contains("image/png"), statement.sql)
            XCTAssertTrue(statement.parameters.contains(.text("x' or 1=1 --")), "\(statement.parameters)")
            XCTAssertTrue(statement.parameters.contains(.text("http://a'b/")))
        }
        let postgres = OriginalQuerySQL.statements(for: query, columns: "path", dialect: .postgres, limited: true)[0]
        XCTAssertTrue(postgres.sql.hasSuffix("LIMIT $\(postgres.parameters.count + 1)::bigint"), postgres.sql)
    }
}
