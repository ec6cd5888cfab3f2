import XCTest
@testable import ShoeboxKit

/// Checks one file's metadata against exiftool's `-json -n` object: every key
/// exiftool reports must be reported with the same value, and no other.
func assertMatchesExiftool(
    _ metadata: PhotoMetadata, _ oracle: [String: Any], file: StaticString = #filePath, line: UInt = #line
) {
    let path = oracle["SourceFile"] as? String ?? "?"
    let ours = Dictionary(metadata.exiftoolFields.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    let theirs = oracle.filter { $0.key != "SourceFile" }
    XCTAssertEqual(Set(ours.keys), Set(theirs.keys), "keys differ for \(path)", file: file, line: line)
    for (key, expected) in theirs {
        guard let value = ours[key] else { continue }
        switch value {
        case .text(let text):
            let expectedText = (expected as? String) ?? (expected as? NSNumber).map { NumberText.format($0.doubleValue) }
            XCTAssertEqual(text, expectedText, "\(key) of \(path)", file: file, line: line)
        case .number(let number):
            guard let expectedNumber = (expected as? NSNumber)?.doubleValue else {
                XCTFail("\(key) of \(path): exiftool gave \(expected), we gave \(number)", file: file, line: line)
                continue
            }
            let tolerance: Double
            switch key {
            case "GPSLatitude", "GPSLongitude": tolerance = 1e-6
            case "GPSAltitude": tolerance = 0.01
            default: tolerance = max(1e-9, abs(expectedNumber) * 1e-9)
            }
            XCTAssertEqual(number, expectedNumber, accuracy: tolerance, "\(key) of \(path)", file: file, line: line)
        }
    }
}
