import Foundation
@testable import ShoeboxKit
import XCTest

/// NumberText writes numbers as exiftool -n does: whole numbers without ".0", the shortest
/// text when it has at most 15 digits, else printf's %.15g (written without Foundation's
/// formatter, which must not change a digit).
final class NumberTextTests: XCTestCase {
    func testExamples() {
        XCTAssertEqual(NumberText.format(151.2153), "151.2153")
        XCTAssertEqual(NumberText.format(-3), "-3")
        XCTAssertEqual(NumberText.format(0.1 + 0.2), "0.3")
        XCTAssertEqual(NumberText.format(49.2248252938707123), "49.2248252938707")
        XCTAssertEqual(NumberText.format(1e-300), "1e-300")
        XCTAssertEqual(NumberText.format(-1.7976931348623157e308), "-1.79769313486232e+308")
        XCTAssertEqual(NumberText.format(.nan), "nan")
    }

    func testLongNumbersAreWhatPrintfGives() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = [Double.random(in: -180...180, using: &generator), Double(bitPattern: generator.next())]
                .randomElement(using: &generator)!
            guard value.isFinite, value != value.rounded() || abs(value) >= 1e15 else { continue }
            let shortest = value.description
            guard shortest.contains("e") || shortest.filter(\.isNumber).count > 15 else { continue }
            XCTAssertEqual(NumberText.format(value), String(format: "%.15g", value), "\(value)")
        }
    }
}
