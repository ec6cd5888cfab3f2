import XCTest
@testable import ShoeboxKit

/// The version `shoebox --version` prints (ManualHelpAgreementTests compares the two) has the
/// MAJOR.MINOR.PATCH shape the manual and release notes use.
final class SmokeTests: XCTestCase {
    func testVersionIsThreeNumbers() {
        let parts = Shoebox.version.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3, Shoebox.version)
        XCTAssertTrue(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }, Shoebox.version)
    }
}
