import XCTest
@testable import ShoeboxKit

/// Sigma X3F: the header's pixel size and the PROP section's values, agreeing with
/// `exiftool -json -n`; broken directories warn; fetch names the type .x3f.
final class X3FContainerTests: XCTestCase {
    /// "SECp", the count, format 0, the character count, the (name, value) positions, UTF-16LE characters.
    static func properties(_ pairs: [(String, String)]) -> [UInt8] {
        var characters: [UInt16] = [], positions: [UInt8] = []
        for (name, value) in pairs {
            positions += EXIFBytes.le32(characters.count)
            characters += Array(name.utf16) + [0]
            positions += EXIFBytes.le32(characters.count)
            characters += Array(value.utf16) + [0]
        }
        return Array("SECp".utf8) + EXIFBytes.le32(0x0001_0000) + EXIFBytes.le32(pairs.count) + EXIFBytes.le32(0)
            + EXIFBytes.le32(0) + EXIFBytes.le32(characters.count) + positions + characters.flatMap { EXIFBytes.le16(Int($0)) }
    }

    /// Version 2.0 header (width 2268 and height 1512 at words 7 and 8), PROP, then the directory.
    static func x3f(directory: Int? = nil) -> [UInt8] {
        var header = Array("FOVb".utf8) + EXIFBytes.le32(0x0002_0000) + [UInt8](repeating: 0, count: 40)
        header.replaceSubrange(28..<32, with: EXIFBytes.le32(2268))
        header.replaceSubrange(32..<36, with: EXIFBytes.le32(1512))
        let prop = properties([("CAMMANUF", "SIGMA"), ("CAMMODEL", "SIGMA SD10"), ("TIME", "978309395"), ("ISO", "100"),
                               ("SHUTTER", "0.00929"), ("APERTURE", "8.35419"), ("FLENGTH", "30")])
        let body = header + prop
        let table = Array("SECd".utf8) + EXIFBytes.le32(0x0002_0000) + EXIFBytes.le32(1)
            + EXIFBytes.le32(header.count) + EXIFBytes.le32(prop.count) + Array("PROP".utf8)
        return body + table + EXIFBytes.le32(directory ?? body.count)
    }

    func testHeaderAndPropertiesAgreeWithExiftool() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("IMG0001.X3F")
        try Data(Self.x3f()).write(to: url)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: url.path), .x3f)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.warnings, [])
        XCTAssertEqual(metadata.dateTimeOriginal, "2001:01:01 00:36:35")
        XCTAssertEqual(metadata.width, 2268)
        XCTAssertEqual(metadata.exposureTime, 0.00929)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
    }

    func testBrokenDirectoryAndFetchNaming() throws {
        let broken = try MetadataReader.read(bytes: Self.x3f(directory: 7), name: "broken.x3f")
        XCTAssertTrue(broken.warnings.contains { $0.contains("X3F section directory offset 7") }, "\(broken.warnings)")
        XCTAssertEqual(broken.width, 2268, "the header's size is still read")
        XCTAssertNil(broken.make)
        // A PROP section whose character count runs past it.
        var cut = Self.x3f()
        cut.replaceSubrange(48 + 20..<48 + 24, with: EXIFBytes.le32(1 << 20))
        XCTAssertTrue(try MetadataReader.read(bytes: cut, name: "cut.x3f").warnings.contains("X3F properties section is cut off"))
        let bytes = Self.x3f()
        guard case .accept(let format, let warnings) = ContentTypeRules.decide(contentType: "application/octet-stream",
                                                                                prefix: Array(bytes.prefix(64)), bodyBytes: Int64(bytes.count)) else {
            return XCTFail("rejected")
        }
        XCTAssertEqual(format.fileExtension, "x3f")
        XCTAssertEqual(warnings, [])
    }
}
