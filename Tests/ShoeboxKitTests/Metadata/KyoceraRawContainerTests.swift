import XCTest
@testable import ShoeboxKit

/// Kyocera (Contax N Digital) RAW: the values of its reversed-text header, agreeing with
/// `exiftool -json -n`, marked as the raw header's, dating the photo after EXIF, XMP and IPTC.
final class KyoceraRawContainerTests: XCTestCase {
    static func header(date: String = "2005:07:16 18:14:30") -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: KyoceraRawContainer.headerSize)
        func put(_ text: String, at offset: Int) { bytes.replaceSubrange(offset..<offset + text.utf8.count, with: text.utf8.reversed()) }
        func word(_ value: Int, at offset: Int) { bytes.replaceSubrange(offset..<offset + 4, with: (0..<4).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) }) }
        put("N DIGITAL", at: 0x0C)
        put("KYOCERA", at: 0x19)
        put(date, at: 0x21)
        word(13, at: 0x34)   // ISO 100
        word(56, at: 0x38)   // 2^7 / 16000 = 0.008 s
        word(56, at: 0x58)   // 2^3.5 = f/11.3
        word(55, at: 0x70)
        return bytes + [UInt8](repeating: 0x40, count: 64)
    }

    func testHeaderAgreesWithExiftoolAndDatesThePhoto() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("CONTAX.RAW")
        try Data(Self.header()).write(to: url)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: url.path), .kyoceraRaw)
        let metadata = try MetadataReader.read(path: url.path)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        XCTAssertEqual(metadata.iso, 100)
        XCTAssertEqual(metadata.isoAsWritten, .number(13))
        XCTAssertEqual(metadata.sources["DateTimeOriginal"], .rawHeader)
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata, modified: 0), CaptureDate(takenAt: "2005:07:16 18:14:30", source: .rawHeader))
        XCTAssertTrue(CaptureDateSource.rawHeader.isCamera)
        // An implausible date falls through to the file's time.
        let bad = try MetadataReader.read(bytes: Self.header(date: "0000:00:00 00:00:00"), name: "bad.raw")
        XCTAssertEqual(CaptureDate.forFile(metadata: bad, modified: 86_400 * 365).source, .fileTime)
    }

    func testCutHeaderAndFetchNaming() throws {
        XCTAssertThrowsError(try MetadataReader.read(bytes: Array(Self.header().prefix(100)), name: "cut.raw")) { error in
            XCTAssertTrue("\(error)".contains("cut.raw: RAW file is damaged: Kyocera RAW header cut off"), "\(error)")
        }
        let bytes = Self.header()
        guard case .accept(let format, let warnings) = ContentTypeRules.decide(contentType: "application/octet-stream",
                                                                                prefix: Array(bytes.prefix(64)), bodyBytes: Int64(bytes.count)) else {
            return XCTFail("rejected")
        }
        XCTAssertEqual(format, .kyoceraRaw)
        XCTAssertEqual(format.fileExtension, "raw")
        XCTAssertEqual(warnings, [])
    }
}
