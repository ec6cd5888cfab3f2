import XCTest
@testable import ShoeboxKit

final class OriginalRecordTests: XCTestCase {
    func testTheLensNameLosesItsPaddingOfSpacesNewlinesAndNULs() {
        var metadata = PhotoMetadata()
        metadata.lensModel = " \tRF24-105mm F4 L IS USM\u{0}\u{0}\n "
        XCTAssertEqual(OriginalRecord.lens(of: metadata), "RF24-105mm F4 L IS USM")
        metadata.lensModel = "EF 50mm f/1.8\u{0} II"
        XCTAssertEqual(OriginalRecord.lens(of: metadata), "EF 50mm f/1.8\u{0} II", "only the ends are trimmed")
        metadata.lensModel = "\u{0}\u{0} "
        XCTAssertEqual(OriginalRecord.lens(of: metadata), "", "nothing but padding: no lens named")
        XCTAssertEqual(OriginalRecord.lens(of: nil), "")
    }
}
