import XCTest
@testable import ShoeboxKit

/// RFC 9110 8.6: a Content-Length is one number, or a list of that one number.
final class ResponseFramingTests: XCTestCase {
    func testLengthValues() {
        XCTAssertEqual(ResponseFraming.lengthValues("42"), ["42"])
        XCTAssertEqual(ResponseFraming.lengthValues("42, 42"), ["42", "42"])
        XCTAssertEqual(ResponseFraming.lengthValues("0042"), ["42"], "leading zeros name the same number")
        XCTAssertEqual(ResponseFraming.lengthValues("0"), ["0"])
        XCTAssertEqual(ResponseFraming.lengthValues("39773, 79546"), ["39773", "79546"])
        for invalid in ["12abc", "", " ", "-1", "1.5", "4 2", "42,", ",42", "0x10", "+5"] {
            XCTAssertNil(ResponseFraming.lengthValues(invalid), invalid)
        }
    }
}
