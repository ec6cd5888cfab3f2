import Foundation
import XCTest
@testable import ShoeboxKit

/// JPEG (APP1) against exiftool: every camera, every orientation.
final class MetadataJPEGTests: XCTestCase {
    func testEveryCameraAndOrientationMatchesExiftool() throws {
        let directory = try makeTemporaryDirectory(self)
        var items: [(URL, CameraTags)] = []
        for orientation in 1...8 {
            var tags = CameraTags.cameras[orientation % CameraTags.cameras.count]
            tags.orientation = orientation
            let url = directory.appendingPathComponent("camera-\(orientation).jpg")
            try MetadataFixtures.makeImage(url, width: 40 + orientation, height: 30 + orientation)
            items.append((url, tags))
        }
        try MetadataFixtures.writeTags(items)
        let oracle = try MetadataFixtures.exiftool(items.map(\.0))
        XCTAssertEqual(oracle.count, items.count)
        for (url, tags) in items {
            let metadata = try MetadataReader.read(path: url.path)
            XCTAssertEqual(metadata.format, .jpeg)
            XCTAssertEqual(metadata.orientation, tags.orientation)
            XCTAssertEqual(metadata.warnings, [], url.lastPathComponent)
            assertMatchesExiftool(metadata, try XCTUnwrap(oracle[url.path]))
        }
    }

    func testJPEGWithoutEXIFHasSizeAndNoWarnings() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("plain.jpg")
        try MetadataFixtures.makeImage(url, width: 123, height: 45)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.width, 123)
        XCTAssertEqual(metadata.height, 45)
        XCTAssertNil(metadata.make)
        XCTAssertNil(metadata.gps)
        XCTAssertEqual(metadata.warnings, [])
    }

    /// Before, two stray bytes between segments ended the walk: the pixel size was lost
    /// (exiftool skips them and reads the frame header; here 64 × 48 with its camera tags).
    func testStrayBytesBetweenSegmentsAreSkippedAsExiftoolDoes() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("stray.jpg")
        try MetadataFixtures.makeImage(url)
        try MetadataFixtures.writeTags([(url, CameraTags.cameras[0])])
        var bytes = [UInt8](try Data(contentsOf: url))
        let frame = try XCTUnwrap((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes.insert(contentsOf: [0x00, 0x00], at: frame)
        try Data(bytes).write(to: url)
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        XCTAssertEqual(oracle["ImageWidth"] as? Int, 64)
        XCTAssertEqual(oracle["ImageHeight"] as? Int, 48)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.width, 64)
        XCTAssertEqual(metadata.height, 48)
        XCTAssertEqual(metadata.warnings, ["JPEG has 2 stray bytes at byte \(frame) between segments; skipped to the next marker"])
        assertMatchesExiftool(metadata, oracle)
    }

    /// Before, GPSAltitude was dropped when the file had no latitude and longitude; exiftool
    /// reports it (-123.5: 123.5 m with the below-sea-level reference).
    func testAltitudeWithoutAPositionIsReported() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("altitude.jpg")
        try MetadataFixtures.makeImage(url)
        try MetadataFixtures.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-GPSAltitude=123.5", "-GPSAltitudeRef#=1", url.path])
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        XCTAssertEqual(oracle["GPSAltitude"] as? Double, -123.5)
        XCTAssertNil(oracle["GPSLatitude"])
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertNil(metadata.gps)
        XCTAssertEqual(metadata.gpsAltitude, -123.5)
        XCTAssertEqual(metadata.warnings, [])
        assertMatchesExiftool(metadata, oracle)
    }

    /// Before, an Orientation only in IFD1 was not read; exiftool reports it (6) when IFD0 has none.
    func testOrientationOnlyInIFD1IsRead() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("ifd1-orientation.jpg")
        try MetadataFixtures.makeImage(url)
        // vips writes Orientation 1 into IFD0: remove it, and put 6 in IFD1.
        try MetadataFixtures.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-IFD0:Orientation=", "-IFD1:Orientation#=6", url.path])
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        XCTAssertEqual(oracle["Orientation"] as? Int, 6)
        let metadata = try MetadataReader.read(path: url.path, includeAllTags: true)
        XCTAssertFalse(metadata.tags.contains { $0.group == "IFD0" && $0.name == "Orientation" }, "the fixture has none in IFD0")
        XCTAssertEqual(metadata.orientation, 6)
        XCTAssertEqual(metadata.warnings, [])
        assertMatchesExiftool(metadata, oracle)
    }

    /// Tags exiftool converts even with -n are listed by --all with exiftool's value, not the raw
    /// one (before: APEX numbers 7.966 / 2.971 / 1.696, "9 54 28.5", "01 02 03 00", UCS-2 byte lists).
    func testAllTagsCarryExiftoolsValuesForTheTagsItConverts() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("converted.jpg")
        try MetadataFixtures.makeImage(url)
        try MetadataFixtures.run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + Self.convertedTagArguments + [url.path])
        let keys = ["ShutterSpeedValue", "ApertureValue", "MaxApertureValue", "GPSTimeStamp", "ComponentsConfiguration",
                    "XPTitle", "XPComment", "XPAuthor", "XPKeywords", "XPSubject"]
        let json = try MetadataFixtures.run("/usr/bin/exiftool", ["-json", "-n"] + keys.map { "-" + $0 } + [url.path])
        let oracle = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
        let tags = try MetadataReader.read(path: url.path, includeAllTags: true).tags
        for key in keys {
            let tag = try XCTUnwrap(tags.first { $0.name == key }, key)
            switch oracle[key] {
            case let text as String where Double(text) == nil:
                XCTAssertEqual(tag.value, text, key)
            case let expected:
                // exiftool -json quotes a number with more than 16 decimals ("0.00399999999629052").
                let number = try XCTUnwrap((expected as? NSNumber)?.doubleValue ?? (expected as? String).flatMap(Double.init), key)
                XCTAssertEqual(tag.numbers.count, 1, key)
                XCTAssertEqual(tag.numbers.first ?? .nan, number, accuracy: abs(number) * 1e-12, key)
            }
        }
        // exiftool 12.57's values for this file.
        let values = Dictionary(tags.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(values["ShutterSpeedValue"], "0.00399999999629052")
        XCTAssertEqual(values["ApertureValue"], "2.80000000452162")
        XCTAssertEqual(values["MaxApertureValue"], "1.80000000242677")
        XCTAssertEqual(values["GPSTimeStamp"], "09:54:28.5")
        XCTAssertEqual(values["ComponentsConfiguration"], "1 2 3 0")
        XCTAssertEqual(values["XPTitle"], "Sunset über Zürich")
        XCTAssertEqual(values["XPKeywords"], "sea;sky")
    }

    /// exiftool arguments writing the tags exiftool converts even with -n (vips writes ComponentsConfiguration).
    static let convertedTagArguments = [
        "-XPTitle=Sunset über Zürich", "-XPComment=A comment", "-XPAuthor=Ann", "-XPKeywords=sea;sky", "-XPSubject=Subj",
        "-ShutterSpeedValue=0.004", "-ApertureValue=2.8", "-MaxApertureValue=1.8", "-GPSTimeStamp=09:54:28.5",
    ]

    /// --all lists the thumbnail pointers (left out of the block libexif parses) in IFD1.
    func testAllTagsListThumbnailPointersInIFD1() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("thumb.jpg")
        let thumbnail = url.deletingLastPathComponent().appendingPathComponent("t.jpg")
        try MetadataFixtures.makeImage(url, width: 200, height: 150)
        try MetadataFixtures.makeImage(thumbnail, width: 16, height: 12)
        try MetadataFixtures.writeTags([(url, CameraTags.cameras[0])])
        try MetadataFixtures.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-ThumbnailImage<=\(thumbnail.path)", url.path])
        let metadata = try MetadataReader.read(path: url.path, includeAllTags: true)
        let ifd1 = metadata.tags.filter { $0.group == "IFD1" }
        let length = try XCTUnwrap(ifd1.first { $0.name == "JPEGInterchangeFormatLength" })
        XCTAssertEqual(length.numbers.first.map { Int($0) }, try Data(contentsOf: thumbnail).count)
        XCTAssertTrue(ifd1.contains { $0.name == "JPEGInterchangeFormat" })
        let groups = metadata.tags.map(\.group).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        XCTAssertEqual(groups, ["IFD0", "ExifIFD", "GPS", "IFD1"], "each group once, in report order")
        XCTAssertEqual(metadata.width, 200)
        XCTAssertEqual(metadata.warnings, [])
    }
}
