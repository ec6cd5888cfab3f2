@testable import ShoeboxCLI
@testable import ShoeboxKit
import XCTest

final class InspectJSONTextTests: XCTestCase {
    /// One convention for sizes in every command: IEC binary units, as fetch and verify print them
    /// (inspect said "2.4 MB" and "kB" before); --json keeps the number of bytes.
    func testInspectSizesAreInBinaryUnits() {
        XCTAssertEqual(InspectPrinter.byteCount(999), "999 B")
        XCTAssertEqual(InspectPrinter.byteCount(1536), "1.5 KiB")
        XCTAssertEqual(InspectPrinter.byteCount(2_400_000), "2.3 MiB")
        let block = InspectPrinter.block(PhotoMetadata(), path: "a.jpg", fileSize: 3 * 1024 * 1024 * 1024, includeAllTags: false)
        XCTAssertTrue(block.contains("  Format       unknown format, 3.0 GiB"), block)
    }

    func testNumberLikeTextFollowsExiftool() {
        for text in ["0", "1.10", "-3", "100", "2e5", "1.5E-3", "123456789012345"] {
            XCTAssertTrue(JSONText.looksLikeNumber(text), text)
        }
        for text in ["", "-", "01", "1.", ".5", "1.0.4", "17.4.1", "1e", "1e1234", "1234567890123456", "+02:00", "5D", " 1"] {
            XCTAssertFalse(JSONText.looksLikeNumber(text), text)
        }
    }

    func testAllTagsNeverPutARawValueUnderAKeyDocumentedAsDegrees() throws {
        // GPSLatitude 59/0 0/0 0/0: no position, so the summary leaves GPS out; --all must not
        // print the raw "undef undef undef" (or a half-read number) under exiftool's key.
        var metadata = PhotoMetadata()
        metadata.make = "Maker"
        metadata.tags = [
            ExifTag(group: "GPS", name: "GPSLatitude", id: 2, value: "undef undef undef"),
            ExifTag(group: "GPS", name: "GPSLongitude", id: 4, value: "10", numbers: [10]),
            ExifTag(group: "GPS", name: "GPSLatitudeRef", id: 1, value: "N"),
            ExifTag(group: "GPS", name: "GPSAltitude", id: 6, value: "123", numbers: [123]),
            ExifTag(group: "ExifIFD", name: "ExposureTime", id: 0x829A, value: "undef"),
        ]
        let line = InspectPrinter.json(MetadataBatch.Item(path: "x.jpg", fileSize: 1, result: .success(metadata)), includeAllTags: true)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertNil(object["GPSLatitude"], line)
        XCTAssertNil(object["GPSLongitude"], line)
        XCTAssertEqual(object["GPSLatitudeRef"] as? String, "N", "other raw tags stay")
        XCTAssertEqual(object["GPSAltitude"] as? Double, 123, "one number in exiftool's unit stays")
        XCTAssertNil(object["ExposureTime"], line)
        XCTAssertEqual(object["Make"] as? String, "Maker")
    }

    func testFetchResultLineIsValidJSONWithEveryField() throws {
        var result = FetchResult(url: "http://127.0.0.1:9/a \"b\"\u{1}.jpg", origin: "list.txt:3", outcome: .stored, attempts: 2)
        result.finalURL = "http://127.0.0.1:9/final"
        result.httpStatus = 200
        result.bytes = 12_345_678_901
        result.warnings = ["content-type-mismatch: x", "line\nbreak"]
        result.original = OriginalRecord(
            sha256: "ab", path: "originals/x.jpg", bytes: 1, contentType: "image/jpeg", width: 640, height: 480,
            takenAt: "2024:05:01 12:00:00", datedBy: .exif, make: "Canon", gpsLatitude: 48.858_37, gpsLongitude: 2.294_5,
            addedAt: "t")
        let line = FetchResultJSON.line(for: result)
        XCTAssertFalse(line.contains("\n"), "one line")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["url"] as? String, result.url)
        XCTAssertEqual(object["bytes"] as? Int, 12_345_678_901)
        XCTAssertEqual(object["attempts"] as? Int, 2)
        XCTAssertTrue(object["reason"] is NSNull)
        XCTAssertEqual(object["warnings"] as? [String], result.warnings)
        let metadata = try XCTUnwrap(object["metadata"] as? [String: Any])
        XCTAssertEqual(metadata["width"] as? Int, 640)
        XCTAssertTrue(metadata["orientation"] is NSNull)
        let gps = try XCTUnwrap(metadata["gps"] as? [String: Any])
        XCTAssertEqual(gps["latitude"] as? Double, 48.858_37)
        XCTAssertTrue(gps["altitude"] is NSNull)
        XCTAssertEqual(Set(object.keys), ["attempts", "bytes", "content_type", "extension", "final_url", "http_status", "metadata",
                                          "outcome", "path", "reason", "sha256", "source", "url", "warnings"])
    }

    func testStringsAreEscaped() {
        XCTAssertEqual(JSONText.string("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"")
        XCTAssertEqual(JSONText.number(.nan), "null")
        XCTAssertEqual(JSONText.number(151.21529999999998), "151.2153")
    }
}
