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
        // Each prefix either is refused with a MetadataError (anything else thrown fails the test)
        // or reads as a HEIF whose Make, when found, is the one in the file: a cut never invents
        // a value, and the whole file still reads in full.
        let bytes = heif(exifInIdat: false)
        var refused = 0
        for length in 0..<bytes.count {
            do {
                let metadata = try MetadataReader.read(bytes: Array(bytes.prefix(length)), name: "cut.heic")
                XCTAssertTrue(metadata.make == nil || metadata.make == "Apple", "\(length) bytes: make \(metadata.make ?? "")")
                XCTAssertTrue(metadata.orientation == nil || metadata.orientation == 6, "\(length) bytes")
                // The Exif payload ends the file: no prefix holds it whole, so none has its Make.
                XCTAssertNil(metadata.make, "\(length) of \(bytes.count) bytes")
            } catch is MetadataError {
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 0, "the shortest prefixes are no HEIF at all")
        XCTAssertEqual(try MetadataReader.read(bytes: bytes, name: "whole.heic").make, "Apple")
    }

    /// Zero-width iloc fields with 65,535 extents per item must not make a near-endless loop.
    func testZeroWidthIlocFieldsDoNotLoopForever() throws {
        let item = be(0, 2) + be(0, 2) + be(0, 2) + be(0xFFFF, 2)  // id 0, method 0, data ref 0, extents
        let items = be(20_000, 2) + (0..<20_000).flatMap { _ in item }
        let metadata = try MetadataReader.read(bytes: heif(exifInIdat: false, ilocItems: items, ilocSizes: [0, 0]), name: "zero.heic")
        XCTAssertNil(metadata.make)
        XCTAssertEqual(metadata.width, 4032)
    }

    /// Canon CR3: IFD0, ExifIFD and GPS in three TIFFs (CMT1, CMT2, CMT4) inside moov/uuid.
    func testCR3CombinesItsThreeTIFFs() throws {
        let text = { (s: String) in Array(s.utf8) + [0] }
        let cmt1 = EXIFBytes.tiff(values: [
            (0x0100, 4, 1, EXIFBytes.le32(8192)), (0x0101, 4, 1, EXIFBytes.le32(5464)),
            (0x010F, 2, 6, text("Canon")), (0x0110, 2, 13, text("Canon EOS R5")), (0x0112, 3, 1, EXIFBytes.le16(8)),
        ])
        let cmt2 = EXIFBytes.tiff(values: [
            (0x829A, 5, 1, EXIFBytes.rationals([(1, 500)])), (0x829D, 5, 1, EXIFBytes.rationals([(56, 10)])),
            (0x8827, 3, 1, EXIFBytes.le16(400)), (0x9003, 2, 20, text("2024:03:09 10:11:12")),
        ])
        let cmt4 = EXIFBytes.tiff(values: [
            (0x0001, 2, 2, text("S")), (0x0002, 5, 3, EXIFBytes.rationals([(33, 1), (52, 1), (1234, 100)])),
            (0x0003, 2, 2, text("W")), (0x0004, 5, 3, EXIFBytes.rationals([(70, 1), (30, 1), (0, 1)])),
            (0x0005, 1, 1, [1]), (0x0006, 5, 1, EXIFBytes.rationals([(255, 10)])),
        ])
        let canon = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48].map { UInt8($0) }
        let uuid = box("uuid", canon + box("CNCV", Array("CanonCR3_001/00.09.00/00.00.00".utf8)) + box("CMT1", cmt1)
            + box("CMT2", cmt2) + box("CMT4", cmt4))
        let file = box("ftyp", Array("crx ".utf8) + be(1, 4) + Array("crx isom".utf8)) + box("moov", uuid + box("mvhd", be(0, 100)))
            + box("mdat", [UInt8](repeating: 0xAB, count: 64))
        let metadata = try MetadataReader.read(bytes: file, name: "IMG_0001.CR3", includeAllTags: true)
        XCTAssertEqual(metadata.format, .cr3)
        XCTAssertEqual(metadata.model, "Canon EOS R5")
        XCTAssertEqual(metadata.width, 8192)
        XCTAssertEqual(metadata.height, 5464)
        XCTAssertEqual(metadata.orientation, 8)
        XCTAssertEqual(metadata.exposureTime ?? 0, 0.002, accuracy: 1e-12)
        XCTAssertEqual(metadata.fNumber ?? 0, 5.6, accuracy: 1e-12)
        XCTAssertEqual(metadata.iso, 400)
        XCTAssertEqual(metadata.dateTimeOriginal, "2024:03:09 10:11:12")
        XCTAssertEqual(metadata.gps?.latitude ?? 0, -(33 + 52.0 / 60 + 12.34 / 3600), accuracy: 1e-9)
        XCTAssertEqual(metadata.gps?.longitude ?? 0, -70.5, accuracy: 1e-9)
        XCTAssertEqual(metadata.gps?.altitude ?? 0, -25.5, accuracy: 1e-9)
        XCTAssertEqual(Set(metadata.tags.map(\.group)), ["IFD0", "ExifIFD", "GPS"])
        XCTAssertEqual(metadata.warnings, [])
    }

    /// Two Exif items: the one whose `cdsc` reference names the primary item wins, wherever it is listed.
    func testExifItemDescribingThePrimaryImageIsChosen() throws {
        func exif(_ make: String) -> [UInt8] {
            be(0, 4) + EXIFBytes.tiff(values: [(0x010F, 2, make.utf8.count + 1, Array(make.utf8) + [0])])
        }
        let thumb = exif("ThumbnailMaker"), main = exif("Apple")
        let infe = { (id: Int, type: String) in self.fullBox("infe", version: 2, self.be(id, 2) + self.be(0, 2) + Array(type.utf8) + [0]) }
        let iinf = fullBox("iinf", version: 0, be(4, 2) + infe(1, "hvc1") + infe(2, "Exif") + infe(3, "hvc1") + infe(4, "Exif"))
        let cdsc = { (from: Int, to: Int) in self.box("cdsc", self.be(from, 2) + self.be(1, 2) + self.be(to, 2)) }
        let iref = fullBox("iref", version: 0, cdsc(2, 3) + cdsc(4, 1))
        // iloc v1, 4-byte offsets/lengths, no base offset: both Exif items in idat (method 1).
        let items = be(2, 2) + be(2, 2) + be(1, 2) + be(0, 2) + be(1, 2) + be(0, 4) + be(thumb.count, 4)
            + be(4, 2) + be(1, 2) + be(0, 2) + be(1, 2) + be(thumb.count, 4) + be(main.count, 4)
        let iloc = fullBox("iloc", version: 1, [0x44, 0x00] + items)
        let meta = fullBox("meta", version: 0, fullBox("hdlr", version: 0, be(0, 4) + Array("pict".utf8) + be(0, 13))
            + fullBox("pitm", version: 0, be(1, 2)) + iinf + iref + iloc + box("idat", thumb + main))
        let file = box("ftyp", Array("heic".utf8) + be(0, 4) + Array("mif1heic".utf8)) + meta
        let metadata = try MetadataReader.read(bytes: file, name: "two-exif.heic")
        XCTAssertEqual(metadata.make, "Apple")
        XCTAssertEqual(metadata.warnings, [])
    }
}
