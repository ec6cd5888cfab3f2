import XCTest
@testable import ShoeboxKit

/// JPEG 2000 (its image header, XMP and Exif boxes) and JPEG XL (the codestream's size header,
/// plain and Brotli-compressed Exif boxes), agreeing with `exiftool -json -n` where it reads them.
final class JPEG2000AndJXLTests: XCTestCase {
    private static func be32(_ v: Int) -> [UInt8] { EXIFBytes.be16(v >> 16) + EXIFBytes.be16(v & 0xFFFF) }
    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(payload.count + 8) + Array(type.utf8) + payload }

    static let xmp = Array("""
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
        xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
        xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6" tiff:Make="Hasselblad"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """.utf8)

    static func jp2(ihdr: Bool = true) -> [UInt8] {
        let header = box("ihdr", be32(3701) + be32(2717) + [0, 3, 7, 7, 0, 0])
        return JP2Container.signature + box("ftyp", Array("jp2 ".utf8) + [0, 0, 0, 0] + Array("jp2 ".utf8))
            + box("jp2h", ihdr ? header : []) + box("xml ", xmp) + box("jp2c", [0xFF, 0x4F, 0xFF, 0x51] + [UInt8](repeating: 0, count: 40))
    }

    func testJPEG2000HeaderAndXMPAgreeWithExiftool() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("scan.jp2")
        try Data(Self.jp2()).write(to: url)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: url.path), .jp2)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.width, 2717)
        XCTAssertEqual(metadata.height, 3701)
        XCTAssertEqual(metadata.orientation, 6)
        XCTAssertEqual(metadata.sources["Orientation"], .xmp)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        // Without its image header: a damaged file, named.
        XCTAssertThrowsError(try MetadataReader.read(bytes: Self.jp2(ihdr: false), name: "no-ihdr.jp2")) { error in
            XCTAssertTrue("\(error)".contains("ihdr"), "\(error)")
        }
    }

    /// Bits least significant first, as JPEG XL's headers are read.
    private static func bits(_ fields: [(value: Int, count: Int)]) -> [UInt8] {
        var bytes: [UInt8] = [], position = 0
        for field in fields {
            for index in 0..<field.count {
                if position / 8 == bytes.count { bytes.append(0) }
                bytes[position / 8] |= UInt8((field.value >> index) & 1) << UInt8(position % 8)
                position += 1
            }
        }
        return bytes + [0, 0]
    }

    func testJXLSizeHeaderAndCompressedExif() throws {
        // Not a multiple of 8: small = 0, height 130 as U32 (selector 0: 9 bits, value - 1), ratio 0, width 200 likewise.
        let codestream = [0xFF, 0x0A] + Self.bits([(0, 1), (0, 2), (129, 9), (0, 3), (0, 2), (199, 9)])
        XCTAssertTrue(JXLContainer.sizeHeader(Array(codestream[2...]))! == (200, 130))
        // Small: height 64 (h_div8 = 7), ratio 7 (2:1): 128 × 64.
        XCTAssertTrue(JXLContainer.sizeHeader(Self.bits([(1, 1), (7, 5), (7, 3)]))! == (128, 64))
        XCTAssertNil(JXLContainer.sizeHeader([]))
        let bare = try makeTemporaryDirectory(self).appendingPathComponent("bare.jxl")
        try Data(codestream + [UInt8](repeating: 0, count: 32)).write(to: bare)
        let metadata = try MetadataReader.read(path: bare.path)
        XCTAssertEqual(metadata.width, 200)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([bare])[bare.path]))
        // A container whose Exif box (Make "Canon") is Brotli-compressed ("brob"), made with libbrotlienc.
        let compressed: [UInt8] = [0x1b, 0x23, 0x00, 0xf8, 0x07, 0xe1, 0x64, 0x27, 0x98, 0xa6, 0x0b, 0x51, 0x6a, 0x4a, 0x91, 0x8d,
                                   0x82, 0xa1, 0x84, 0xff, 0xd3, 0x08, 0x13, 0xa9, 0xb0, 0x00, 0x4b, 0x00]
        let container = [0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
            + Self.box("ftyp", Array("jxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8))
            + Self.box("brob", Array("Exif".utf8) + compressed) + Self.box("jxlc", codestream)
        XCTAssertEqual(FormatSniffer.sniff(container), .jxl)
        let boxed = try MetadataReader.read(bytes: container, name: "boxed.jxl")
        XCTAssertEqual(boxed.make, "Canon")
        XCTAssertEqual(boxed.width, 200)
        XCTAssertEqual(boxed.warnings, [])
        // A corrupt compressed box: a warning, the rest read.
        var corrupt = container
        let at = corrupt.count - codestream.count - 8 - 10
        corrupt[at] ^= 0xFF
        let broken = try MetadataReader.read(bytes: corrupt, name: "corrupt.jxl")
        XCTAssertEqual(broken.width, 200)
        XCTAssertEqual(broken.warnings, ["JPEG XL compressed Exif box does not decompress within 16384 KiB; not read"])
        XCTAssertNil(broken.make)
    }
}
