import XCTest
@testable import ShoeboxKit
final class SmokeTests: XCTestCase { func testVersion() { XCTAssertFalse(Shoebox.version.isEmpty) } }
