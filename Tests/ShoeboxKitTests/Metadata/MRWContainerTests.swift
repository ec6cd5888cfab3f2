import XCTest
@testable import ShoeboxKit

/// Minolta MRW files: the pixel size from the PRD block and the EXIF from the TTW block's TIFF,
/// agreeing with `exiftool -json -n`; fetch names them .mrw.
final class MRWContainerTests: XCTestCase {
    private static func be16(_ v: Int) -> [UInt8] { EXIFBytes.be16(v) }
    private static func be32(_ v: Int) -> [UInt8] { EXIFBytes.be16(v >> 16) + EXIFBytes.be16(v & 0xFFFF) }

    /// "\0MRM", the header's length, then PRD (sensor 2456 × 3272, image 2448 × 3264) and TTW blocks.
    static func mrw(ttw: [UInt8], prdLength: Int = 24) -> [UInt8] {
        var prd = Array("21810002".utf8) + be16(2456) + be16(3272) + be16(2448) + be16(3264) + [12, 12, 0x59, 0, 0, 0, 0, 0]
        prd = Array(prd.prefix(24))
        let blocks = [0, 0x50, 0x52, 0x44] + be32(prdLength) + prd + [0, 0x54, 0x54, 0x57] + be32(ttw.count) + ttw
        return [0, 0x4D, 0x52, 0x4D] + be32(blocks.count) + blocks + [UInt8](repeating: 0x55, count: 64)
    }

    static let ttw = EXIFBytes.tiff(values: [(0x010F, 2, 28, Array("Konica Minolta Camera, Inc.\0".utf8)),
                                            (0x0110, 2, 10, Array("DiMAGE A2\0".utf8)), (0x0112, 3, 1, EXIFBytes.le16(1))])

    func testSizeFromPRDAndEXIFFromTTWAgreeWithExiftool() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("PICT0001.MRW")
        try Data(Self.mrw(ttw: Self.ttw)).write(to: url)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: url.path), .mrw)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.format, .mrw)
        XCTAssertEqual(metadata.width, 3264)
        XCTAssertEqual(metadata.height, 2448)
        XCTAssertEqual(metadata.model, "DiMAGE A2")
        XCTAssertEqual(metadata.warnings, [])
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
    }

    func testBrokenBlocksWarnAndFetchNamesTheType() throws {
        // A PRD block claiming more than the header holds, and nothing else read: a damaged file, the block named.
        XCTAssertThrowsError(try MetadataReader.read(bytes: Self.mrw(ttw: Self.ttw, prdLength: 1 << 30), name: "broken.mrw")) { error in
            XCTAssertTrue("\(error)".contains("MRW block PRD (1073741824 bytes at 16) runs past the header"), "\(error)")
        }
        // Cut inside the TTW block: the size is still known.
        let cut = try MetadataReader.read(bytes: Array(Self.mrw(ttw: Self.ttw).prefix(60)), name: "cut.mrw")
        XCTAssertEqual(cut.width, 3264)
        // Sent as application/octet-stream, stored as .mrw.
        let bytes = Self.mrw(ttw: Self.ttw)
        guard case .accept(let format, let warnings) = ContentTypeRules.decide(contentType: "application/octet-stream",
                                                                                prefix: Array(bytes.prefix(64)), bodyBytes: Int64(bytes.count)) else {
            return XCTFail("rejected")
        }
        XCTAssertEqual(format, .mrw)
        XCTAssertEqual(format.fileExtension, "mrw")
        XCTAssertEqual(warnings, [])
        XCTAssertTrue(format.isRaw)
    }
}
