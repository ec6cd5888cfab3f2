import Foundation
import XCTest
@testable import ShoeboxKit

/// A DNG sent as application/octet-stream was stored as .tif: raw formats built on TIFF
/// are told apart by IFD0 (DNGVersion; Make and a sign of raw data) or their own magic,
/// and named by their own extension when the Content-Type is generic or names a TIFF.
final class RawFormatSniffingTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "raw-sniff-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func file(_ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func decide(_ bytes: [UInt8], _ contentType: String?) throws -> ContentTypeRules.Decision {
        ContentTypeRules.decide(contentType: contentType, prefix: Array(bytes.prefix(FormatSniffer.prefixLength)),
                                bodyBytes: Int64(bytes.count), file: try file(bytes))
    }

    static func dng(littleEndian: Bool = true) -> [UInt8] {
        var tiff = TIFFBytes(littleEndian: littleEndian)
        tiff.long(0x0100, 64)
        tiff.long(0x0101, 48)
        tiff.ascii(0x010F, "Canon")
        tiff.ascii(0x0110, "Canon EOS 5D")
        tiff.bytes(0xC612, [1, 4, 0, 0])
        return tiff.data
    }

    static func camera(_ make: String, rawSign: (inout TIFFBytes) -> Void) -> [UInt8] {
        var tiff = TIFFBytes()
        tiff.long(0x0100, 160)
        tiff.long(0x0101, 120)
        tiff.ascii(0x010F, make)
        tiff.ascii(0x0110, "Model")
        rawSign(&tiff)
        return tiff.data
    }

    static let nef = camera("NIKON CORPORATION") { $0.long(0x014A, 300) }
    static let arw = camera("SONY") { $0.long(0xC634, 300) }
    static let pef = camera("PENTAX Corporation") { $0.short(0x0103, 65535) }

    func testRawFormatsAreToldApartFromTIFFByIFD0() throws {
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.dng())), .dng)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.dng(littleEndian: false))), .dng, "big-endian DNG")
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.nef)), .nef)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.arw)), .arw)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.pef)), .pef)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.camera("RICOH IMAGING COMPANY, LTD.") { $0.long(0x014A, 300) })), .pef)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.camera("SAMSUNG") { $0.short(0x0103, 32769) })), .srw)
        XCTAssertEqual(FormatSniffer.sniff(Self.dng()), .tiff, "64 bytes alone cannot tell")
    }

    func testPlainTIFFsStayTIFF() throws {
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.camera("NIKON CORPORATION") { $0.short(0x0103, 5) })), .tiff,
                       "a TIFF exported from a NEF keeps its Make: no sign of raw data, no NEF")
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.camera("Canon") { $0.long(0x014A, 300) })), .tiff)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Self.camera("SONY") { _ in })), .tiff)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(TIFFBytes().data)), .tiff, "an IFD0 with no entries")
        // Damaged: IFD0 past the end, entries cut short, a Make offset past the end.
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file([0x49, 0x49, 0x2A, 0, 0xFF, 0xFF, 0xFF, 0x7F] + Array(repeating: 0, count: 60))), .tiff)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(Array(Self.dng().prefix(30)))), .tiff)
        var badMake = Self.nef
        if let at = (0..<badMake.count - 12).first(where: { badMake[$0] == 0x0F && badMake[$0 + 1] == 0x01 && badMake[$0 + 2] == 2 }) {
            badMake.replaceSubrange(at + 8..<at + 12, with: [0xF0, 0xFF, 0xFF, 0x7F])
        }
        XCTAssertEqual(FormatSniffer.sniff(fileAt: try file(badMake)), .tiff)
    }

    func testGenericOrTIFFContentTypesGetTheRawExtension() throws {
        for contentType in ["application/octet-stream", "image/*", nil, "binary/octet-stream", "image/tiff"] as [String?] {
            XCTAssertEqual(try decide(Self.dng(), contentType), .accept(.dng, warnings: []), contentType ?? "none")
            XCTAssertEqual(try decide(Self.nef, contentType), .accept(.nef, warnings: []), contentType ?? "none")
            XCTAssertEqual(try decide(Self.arw, contentType), .accept(.arw, warnings: []), contentType ?? "none")
            XCTAssertEqual(try decide(Self.pef, contentType), .accept(.pef, warnings: []), contentType ?? "none")
        }
        XCTAssertEqual(ImageFormat.dng.fileExtension, "dng")
        let cr2: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x10, 0, 0, 0, 0x43, 0x52, 0x02, 0x00] + Array(repeating: 0, count: 60)
        XCTAssertEqual(try decide(cr2, "image/tiff"), .accept(.cr2, warnings: []), "CR2's magic, under image/tiff")
        XCTAssertEqual(try decide(cr2, "application/octet-stream"), .accept(.cr2, warnings: []))
        XCTAssertEqual(try decide(Array("IIRO".utf8) + Array(repeating: 0, count: 60), "application/octet-stream"), .accept(.orf, warnings: []))
        XCTAssertEqual(try decide([0x49, 0x49, 0x55, 0x00] + Array(repeating: 0, count: 60), "image/tiff"), .accept(.rw2, warnings: []))
        XCTAssertEqual(try decide(Self.camera("NIKON CORPORATION") { _ in }, "application/octet-stream"), .accept(.tiff, warnings: []))
        XCTAssertEqual(try decide(TIFFBytes().data, "image/x-nikon-nef"), .accept(.nef, warnings: []), "a declared raw type still wins over plain TIFF")
        guard case .accept(.dng, let warnings) = try decide(Self.dng(), "image/jpeg") else { return XCTFail("a DNG is a DNG") }
        XCTAssertEqual(warnings.count, 1, "a server saying JPEG is still told it was wrong")
    }
}
