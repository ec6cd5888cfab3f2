@testable import ShoeboxCLI
import XCTest

final class InspectJSONTextTests: XCTestCase {
    func testNumberLikeTextFollowsExiftool() {
        for text in ["0", "1.10", "-3", "100", "2e5", "1.5E-3", "123456789012345"] {
            XCTAssertTrue(JSONText.looksLikeNumber(text), text)
        }
        for text in ["", "-", "01", "1.", ".5", "1.0.4", "17.4.1", "1e", "1e1234", "1234567890123456", "+02:00", "5D", " 1"] {
            XCTAssertFalse(JSONText.looksLikeNumber(text), text)
        }
    }

    func testStringsAreEscaped() {
        XCTAssertEqual(JSONText.string("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"")
        XCTAssertEqual(JSONText.number(.nan), "null")
        XCTAssertEqual(JSONText.number(151.21529999999998), "151.2153")
    }
}
