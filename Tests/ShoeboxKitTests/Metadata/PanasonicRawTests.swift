import XCTest
@testable import ShoeboxKit

/// Panasonic RW2's own IFD0 tags: the ISO (0x0017) and the image size from the sensor borders,
/// as exiftool reports them (its Composite ImageWidth/Height).
final class PanasonicRawTests: XCTestCase {
    func testISOAndBordersAgreeWithExiftool() throws {
        var tiff = EXIFBytes.tiff(values: [(0x0004, 3, 1, EXIFBytes.le16(8)), (0x0005, 3, 1, EXIFBytes.le16(4)),
                                           (0x0006, 3, 1, EXIFBytes.le16(2744)), (0x0007, 3, 1, EXIFBytes.le16(3652)),
                                           (0x0017, 3, 1, EXIFBytes.le16(80)), (0x010F, 2, 10, Array("Panasonic\0".utf8))])
        tiff[2] = 0x55  // "IIU\0", RW2's magic
        let url = try makeTemporaryDirectory(self).appendingPathComponent("P1000001.RW2")
        try Data(tiff).write(to: url)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.format, .rw2)
        XCTAssertEqual(metadata.iso, 80)
        XCTAssertEqual(metadata.width, 3648)
        XCTAssertEqual(metadata.height, 2736)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        // A plain TIFF with the same tag numbers is not read this way.
        tiff[2] = 0x2A
        let plain = try MetadataReader.read(bytes: tiff, name: "plain.tif")
        XCTAssertNil(plain.iso)
        XCTAssertNotEqual(plain.width, 3648)
    }
}
