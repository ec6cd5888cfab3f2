import Foundation
import XCTest
@testable import ShoeboxKit

final class WhitespaceTrimmingTests: XCTestCase {
    /// Foundation's trimming is the oracle: the replacement must give the same text.
    func testMatchesFoundationOnEdgeCases() {
        let samples = [
            "", " ", "\t\r\n", "a", " a ", "\thttp://127.0.0.1/x.jpg\r\n", "  image/JPEG ",
            "a b", " a\u{00A0}b ", "\u{00A0}\u{2003}x\u{3000}", "\u{2028}line\u{2029}", "\u{FEFF}bom",
            "x\u{0301} ", " é", "🙂 ", "\u{85}next-line\u{85}", "\u{0B}\u{0C}vt-ff",
        ]
        for sample in samples {
            XCTAssertEqual(sample.trimmingWhitespace(), sample.trimmingCharacters(in: .whitespacesAndNewlines),
                           "\(sample.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    func testKeepsInnerWhitespaceAndWorksOnSubstrings() {
        XCTAssertEqual("  one  two  ".trimmingWhitespace(), "one  two")
        let middle = "#skip\n  http://127.0.0.1/a.jpg  \nrest".split(separator: "\n")[1]
        XCTAssertEqual(middle.trimmingWhitespace(), "http://127.0.0.1/a.jpg")
    }
}
