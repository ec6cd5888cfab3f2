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
}
