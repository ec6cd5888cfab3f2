import Foundation
import XCTest
@testable import ShoeboxKit

/// Regressions for what the fuzz targets (Tests/Fuzz/) found.
final class FuzzFindingsTests: XCTestCase {
    /// A name starting with a combining mark merged with the "/" before it in Foundation's
    /// grapheme-based path functions: the original's folder came out one level too high and
    /// publishing it failed with ENOENT on every run.
    func testLeadingCombiningMarksAreDropped() throws {
        let stem = try XCTUnwrap(FileNameSanitizer.stem(fromURLPath: "/photos/%CC%81combining.jpg"))
        XCTAssertEqual(stem, "combining")
        let path = "originals/2019/03/04/" + stem + ".jpg"
        XCTAssertEqual((path as NSString).deletingLastPathComponent, "originals/2019/03/04")
        XCTAssertEqual(FileNameSanitizer.sanitize("\u{302E}gp_x"), "gp_x")
        XCTAssertNil(FileNameSanitizer.sanitize("\u{301}\u{302}"))
    }

    /// ".\u{301}x" is one Character, so Character-based trimming kept a leading dot (a hidden file).
    func testDotFollowedByACombiningMarkIsNotAHiddenName() throws {
        let stem = try XCTUnwrap(FileNameSanitizer.sanitize(".\u{301}hidden"))
        XCTAssertNotEqual(stem.utf8.first, UInt8(ascii: "."))
        XCTAssertEqual(stem, "hidden")
    }
}
