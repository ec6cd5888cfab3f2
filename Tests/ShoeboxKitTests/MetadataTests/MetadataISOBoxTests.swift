import XCTest
@testable import ShoeboxKit

/// Hand-built HEIF files for what the tools do not write: the Exif item stored
/// in `idat` (construction method 1), split over two extents, a 32-bit `ipma`,
/// and broken boxes.
final class MetadataISOBoxTests: XCTestCase {
    private func be(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - $0))) } }
    private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be(payload.count + 8, 4) + Array(type.utf8) + payload }
    private func fullBox(_ type: String, version: Int, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [UInt8(version)] + be(flags, 3) + payload)
    }

    /// EXIF item payload: 4-byte offset to the TIFF header, "Exif\0\0", then a TIFF with Make and Orientation.
    private var exifPayload: [UInt8] {
        let tail = EXIFBytes.tailOffset(entries: 2)
        let tiff = EXIFBytes.tiff([
            EXIFBytes.ascii(0x010F, Array("Apple\0".utf8), at: tail),
            EXIFBytes.entry(0x0112, 3, 1, EXIFBytes.le16(6)),
        ], tail: Array("Apple\0".utf8))
        return be(6, 4) + Array("Exif".utf8) + [0, 0] + tiff
    }

    /// ftyp + meta (hdlr, pitm=1, iinf [1 hvc1, 2 Exif], iloc v1, idat, iprp [ipco [ispe], ipma v1 flags 1]).
    private func heif(exifInIdat: Bool, ilocItems: [UInt8]? = nil, ilocSizes: [UInt8]? = nil) -> [UInt8] {
        let payload = exifPayload
        let half = payload.count / 2
        let ftyp = box("ftyp", Array("heic".utf8) + be(0, 4) + Array("mif1heic".utf8))
        let hdlr = fullBox("hdlr", version: 0, be(0, 4) + Array("pict".utf8) + be(0, 12) + [0])
        let pitm = fullBox("pitm", version: 0, be(1, 2))
        let infe1 = fullBox("infe", version: 2, be(1, 2) + be(0, 2) + Array("hvc1".utf8) + [0])
        let infe2 = fullBox("infe", version: 2, be(2, 2) + be(0, 2) + Array("Exif".utf8) + [0])
        let iinf = fullBox("iinf", version: 0, be(2, 2) + infe1 + infe2)
        let ispe = fullBox("ispe", version: 0, be(4032, 4) + be(3024, 4))
        let ipco = box("ipco", box("free", []) + ispe)
        // version 1: 32-bit item IDs; flags 1: 15-bit property indexes. Item 1 -> property 2 (ispe), essential.
        let ipma = fullBox("ipma", version: 1, flags: 1, be(1, 4) + be(1, 4) + [1] + be(0x8002, 2))
        let iprp = box("iprp", ipco + ipma)
        let idat = box("idat", exifInIdat ? payload : [])
        func iloc(exifBase: Int) -> [UInt8] {
            // version 1, offset/length 4 bytes, base offset 4 bytes, no index; two items.
            let items = ilocItems ?? (be(2, 2) + be(1, 2) + be(0, 2) + be(0, 2) + be(0, 4) + be(1, 2) + be(0, 4) + be(0, 4)
                + be(2, 2) + be(exifInIdat ? 1 : 0, 2) + be(0, 2) + be(exifBase, 4) + be(2, 2)
                + be(0, 4) + be(half, 4) + be(half, 4) + be(payload.count - half, 4))
            return fullBox("iloc", version: 1, (ilocSizes ?? [0x44, 0x40]) + items)
        }
        // The meta box's size does not depend on the base offset value, so lay it out once to find mdat.
        let probe = fullBox("meta", version: 0, hdlr + pitm + iinf + iloc(exifBase: 0) + idat + iprp)
        let mdatStart = ftyp.count + probe.count + 8
        let meta = fullBox("meta", version: 0, hdlr + pitm + iinf + iloc(exifBase: exifInIdat ? 0 : mdatStart) + idat + iprp)
        return ftyp + meta + box("mdat", exifInIdat ? [0, 0, 0, 0] : payload)
    }

    func testExifItemInMdatOverTwoExtents() throws {
        let metadata = try MetadataReader.read(bytes: heif(exifInIdat: false), name: "mdat.heic")
        XCTAssertEqual(metadata.format, .heic)
        XCTAssertEqual(metadata.make, "Apple")
        XCTAssertEqual(metadata.orientation, 6)
        XCTAssertEqual(metadata.width, 4032)
        XCTAssertEqual(metadata.height, 3024)
        XCTAssertEqual(metadata.warnings, [])
    }

    func testExifItemInIdat() throws {
        let metadata = try MetadataReader.read(bytes: heif(exifInIdat: true), name: "idat.heic")
        XCTAssertEqual(metadata.make, "Apple")
        XCTAssertEqual(metadata.width, 4032)
        XCTAssertEqual(metadata.warnings, [])
    }

    func testExifExtentOutsideTheFileGivesAWarningAndKeepsTheSize() throws {
        // One item: Exif (ID 2), method 0, base 0, one extent of 100 bytes at 0x7FFF0000.
        let items = be(1, 2) + be(2, 2) + be(0, 2) + be(0, 2) + be(0, 4) + be(1, 2) + be(0x7FFF_0000, 4) + be(100, 4)
        let metadata = try MetadataReader.read(bytes: heif(exifInIdat: false, ilocItems: items), name: "bad.heic")
        XCTAssertNil(metadata.make)
        XCTAssertEqual(metadata.width, 4032)
        XCTAssertTrue(metadata.warnings.contains { $0.contains("outside the file") }, "\(metadata.warnings)")
    }

    func testEveryTruncationOfAHandBuiltHEIFIsHandled() throws {
        let bytes = heif(exifInIdat: false)
        for length in 0..<bytes.count {
            do {
                _ = try MetadataReader.read(bytes: Array(bytes.prefix(length)), name: "cut.heic")
            } catch is MetadataError {
                continue
            }
        }
    }

    /// Zero-width iloc fields with 65,535 extents per item must not make a near-endless loop.
    func testZeroWidthIlocFieldsDoNotLoopForever() throws {
        let item = be(0, 2) + be(0, 2) + be(0, 2) + be(0xFFFF, 2)  // id 0, method 0, data ref 0, extents
        let items = be(20_000, 2) + (0..<20_000).flatMap { _ in item }
        let metadata = try MetadataReader.read(bytes: heif(exifInIdat: false, ilocItems: items, ilocSizes: [0, 0]), name: "zero.heic")
        XCTAssertNil(metadata.make)
        XCTAssertEqual(metadata.width, 4032)
    }
}
