import XCTest
@testable import ShoeboxKit

/// Older cameras' JPEG segments besides EXIF: Canon's CIFF heaps in APP0 and the APP12 "Picture
/// Info" text, filling what EXIF leaves out as exiftool reads them, and dating the photo.
final class JPEGSideSegmentTests: XCTestCase {
    private static func withSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let jpeg = EXIFBytes.jpeg(tiff: nil)
        return Array(jpeg[..<2]) + [0xFF, marker] + EXIFBytes.be16(payload.count + 2) + payload + Array(jpeg[2...])
    }

    func testCIFFInAPP0() throws {
        // The CRW fixture's heaps, with the header JPEGs use ("HEAPJPGM").
        var ciff = CRWContainerTests.crw()
        ciff.replaceSubrange(6..<14, with: Array("HEAPJPGM".utf8))
        let url = try makeTemporaryDirectory(self).appendingPathComponent("powershot.jpg")
        try Data(Self.withSegment(0xE0, ciff)).write(to: url)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.make, "Canon")
        XCTAssertEqual(metadata.width, 40, "the JPEG's own size, not the CIFF's")
        XCTAssertEqual(metadata.sources["Make"], .rawHeader)
        // exiftool reads the same values, but does not compute Canon's ISO from a JPEG's CIFF
        // (it does from a CRW's): shoebox does, from the same arrays.
        var withoutISO = metadata
        withoutISO.iso = nil
        withoutISO.isoAsWritten = nil
        assertMatchesExiftool(withoutISO, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        XCTAssertEqual(metadata.iso, 200)
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata, modified: 0), CaptureDate(takenAt: "2003:11:10 17:39:26", source: .rawHeader))
    }

    func testPictureInfoInAPP12() throws {
        let text = Array("[picture info]\r\nTimeDate=909698819\r\nShutter=33363\r\nFNumber=F2.8\r\nZoom=x1.0\r\n\0".utf8)
        let url = try makeTemporaryDirectory(self).appendingPathComponent("d320l.jpg")
        try Data(Self.withSegment(0xEC, text)).write(to: url)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.dateTimeOriginal, "1998:10:29 22:06:59")
        XCTAssertEqual(metadata.exposureTime, 0.033363)
        XCTAssertEqual(metadata.fNumber, 2.8)
        XCTAssertEqual(metadata.sources["ExposureTime"], .pictureInfo)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata, modified: 0).source, .rawHeader)
        // Binary junk and lines without values are passed over.
        XCTAssertEqual(PictureInfoReader.values([0xFF, 0x3D, 0x01] + Array("\nShutter=\nFNumber=x\n".utf8)), PhotoMetadata())
    }
}
