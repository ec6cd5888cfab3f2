import XCTest
@testable import ShoeboxKit

/// Maker notes fill the ISO and lens name a camera left out of its standard EXIF, agreeing with
/// `exiftool -json -n` on hand-made files laid out as Canon and Nikon cameras lay them out.
final class MakerNoteReaderTests: XCTestCase {
    private typealias Value = (tag: Int, type: Int, count: Int, bytes: [UInt8])

    private static func le16s(_ values: [Int]) -> [UInt8] { values.flatMap { EXIFBytes.le16($0 & 0xFFFF) } }

    /// An IFD at `start` whose out-of-line values follow it; their offsets are written `stated`
    /// bytes lower than where they are (a note moved by an editor), in `bigEndian` order or not.
    private static func ifd(_ values: [Value], at start: Int, stated: Int = 0, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? EXIFBytes.be16(v) : EXIFBytes.le16(v) }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? EXIFBytes.be16(v >> 16) + EXIFBytes.be16(v & 0xFFFF) : EXIFBytes.le32(v) }
        var table = u16(values.count), tail: [UInt8] = []
        let tailStart = start + 2 + 12 * values.count + 4
        for value in values {
            var bytes = value.bytes
            if bigEndian, value.type == 3 { bytes = stride(from: 0, to: bytes.count, by: 2).flatMap { [bytes[$0 + 1], bytes[$0]] } }
            table += u16(value.tag) + u16(value.type) + u32(value.count)
            if bytes.count <= 4 {
                table += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                table += u32(tailStart + tail.count - stated)
                tail += bytes + (bytes.count % 2 == 1 ? [0] : [])
            }
        }
        return table + u32(0) + tail
    }

    /// A little-endian EXIF block: IFD0 with Make, an ExifIFD holding only `makerNote` (built
    /// for the offset it lands at) and, optionally, a standard ISO.
    private static func exif(make: String, iso: Int? = nil, makerNote: (Int) -> [UInt8]) -> [UInt8] {
        let makeText = Array(make.utf8) + [0]
        let ifd0Start = 8, makeAt = ifd0Start + 2 + 24 + 4, exifAt = makeAt + makeText.count + makeText.count % 2
        let exifEntries = iso == nil ? 1 : 2
        let noteAt = exifAt + 2 + 12 * exifEntries + 4
        let note = makerNote(noteAt)
        var block: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + EXIFBytes.le32(ifd0Start) + EXIFBytes.le16(2)
        block += EXIFBytes.entry(0x010F, 2, makeText.count, EXIFBytes.le32(makeAt)) + EXIFBytes.entry(0x8769, 4, 1, EXIFBytes.le32(exifAt))
        block += EXIFBytes.le32(0) + makeText + (makeText.count % 2 == 1 ? [0] : [])
        block += EXIFBytes.le16(exifEntries)
        if let iso { block += EXIFBytes.entry(0x8827, 3, 1, EXIFBytes.le16(iso)) }
        block += EXIFBytes.entry(0x927C, 7, note.count, EXIFBytes.le32(noteAt)) + EXIFBytes.le32(0) + note
        return block
    }

    /// CameraSettings (46 int16s, the first its size in bytes) with CameraISO at index 16.
    private static func cameraSettings(iso: Int, size: Int = 92) -> Value {
        var values = [Int](repeating: 0, count: 46)
        values[0] = size
        values[16] = iso
        return (0x0001, 3, 46, le16s(values))
    }

    /// ShotInfo (27 int16s) with AutoISO at 1 and BaseISO at 2.
    private static func shotInfo(auto: Int, base: Int) -> Value {
        var values = [Int](repeating: 0, count: 27)
        values[0] = 54
        values[1] = auto
        values[2] = base
        return (0x0004, 3, 27, le16s(values))
    }

    private func check(_ name: String, _ block: [UInt8], iso: MetadataValue?, lens: String? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws -> PhotoMetadata {
        let url = try makeTemporaryDirectory(self).appendingPathComponent(name)
        try Data(EXIFBytes.jpeg(tiff: block)).write(to: url)
        let metadata = try MetadataReader.read(path: url.path)
        let ours = Dictionary(metadata.exiftoolFields.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        switch (ours["ISO"], iso) {
        case (.number(let a)?, .number(let b)?): XCTAssertEqual(a, b, accuracy: 1e-9, "ISO of \(name)", file: file, line: line)
        default: XCTAssertEqual(ours["ISO"], iso, "ISO of \(name)", file: file, line: line)
        }
        XCTAssertEqual(metadata.lensModel, lens, "lens of \(name)", file: file, line: line)
        // exiftool reads the same file to the same values.
        let oracle = try MetadataFixtures.run("/usr/bin/exiftool", ["-json", "-n", "-ISO", "-LensModel", url.path])
        let object = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(oracle.utf8)) as? [[String: Any]])?.first)
        switch iso {
        case .number(let number)?:
            XCTAssertEqual(try XCTUnwrap(object["ISO"] as? Double, "exiftool's ISO of \(name)"), number, accuracy: 1e-9, file: file, line: line)
        case .text(let text)?: XCTAssertEqual(object["ISO"] as? String, text, file: file, line: line)
        case nil: XCTAssertNil(object["ISO"], "exiftool's ISO of \(name)", file: file, line: line)
        }
        XCTAssertEqual(object["LensModel"] as? String, lens, "exiftool's LensModel of \(name)", file: file, line: line)
        return metadata
    }

    func testCanonISOFromCameraSettingsOrShotInfoAndTheLensName() throws {
        let lens: Value = (0x0095, 2, 17, Array("EF50mm f/1.8 II\0\0".utf8))
        let numeric = try check("numeric.jpg", Self.exif(make: "Canon") { Self.ifd([Self.cameraSettings(iso: 0x4000 | 250), lens], at: $0) },
                                iso: .number(250), lens: "EF50mm f/1.8 II")
        XCTAssertEqual(numeric.iso, 250)
        XCTAssertEqual(numeric.sources["ISO"], .makerNotes)
        XCTAssertEqual(numeric.sources["LensModel"], .makerNotes)
        // CameraISO "Auto" (15): BaseISO × AutoISO / 100, with its fraction, as exiftool computes it.
        let auto = try check("auto.jpg", Self.exif(make: "Canon") {
            Self.ifd([Self.cameraSettings(iso: 15), Self.shotInfo(auto: 35, base: 164)], at: $0)
        }, iso: .number(exp(164.0 / 32 * log(2.0)) * 100 / 32 * exp(35.0 / 32 * log(2.0))))
        XCTAssertEqual(auto.iso, Int((exp(164.0 / 32 * log(2.0)) * 100 / 32 * exp(35.0 / 32 * log(2.0))).rounded()))
        // The table: 17 is ISO 100.
        _ = try check("table.jpg", Self.exif(make: "Canon") { Self.ifd([Self.cameraSettings(iso: 17)], at: $0) }, iso: .number(100))
        // The standard ISO wins.
        let standard = try check("standard.jpg", Self.exif(make: "Canon", iso: 400) {
            Self.ifd([Self.cameraSettings(iso: 0x4000 | 250)], at: $0)
        }, iso: .number(400))
        XCTAssertNil(standard.sources["ISO"])
    }

    func testCanonNotesMovedByAnEditorOrInTheOtherByteOrder() throws {
        // Offsets written 256 bytes low, and the footer naming where the notes were: exiftool's FixBase.
        let moved = try check("moved.jpg", Self.exif(make: "Canon") { start in
            Self.ifd([Self.cameraSettings(iso: 0x4000 | 320)], at: start, stated: 256)
                + [0x49, 0x49, 0x2A, 0x00] + EXIFBytes.le32(start - 256)
        }, iso: .number(320))
        XCTAssertEqual(moved.warnings, [])
        // Big-endian notes in a little-endian EXIF (exiftool's "Unknown" byte order for Canon).
        _ = try check("swapped.jpg", Self.exif(make: "Canon") { Self.ifd([Self.cameraSettings(iso: 0x4000 | 640)], at: $0, bigEndian: true) },
                      iso: .number(640))
    }

    func testBrokenCanonArraysAreNotRead() throws {
        // CameraSettings whose first value is not its size: exiftool calls it invalid, and so do we.
        let invalid = try check("invalid.jpg", Self.exif(make: "Canon") { Self.ifd([Self.cameraSettings(iso: 0x4000 | 250, size: 186)], at: $0) },
                                iso: nil)
        XCTAssertNil(invalid.sources["ISO"])
        // ShotInfo values that make BaseISO × AutoISO overflow (found by the fuzzer: a trap converting
        // infinity to Int) or zero: no ISO.
        for (auto, base) in [(32767, 32767), (-32768, -32768)] {
            let block = Self.exif(make: "Canon") { Self.ifd([Self.cameraSettings(iso: 15), Self.shotInfo(auto: auto, base: base)], at: $0) }
            let metadata = try MetadataReader.read(bytes: EXIFBytes.jpeg(tiff: block), name: "absurd.jpg")
            XCTAssertNil(metadata.iso, "auto \(auto), base \(base)")
            XCTAssertEqual(metadata.make, "Canon")
        }
        // Notes with an absurd entry count (65,535 in either byte order): a warning, the rest of the file read.
        var block = Self.exif(make: "Canon") { Self.ifd([Self.cameraSettings(iso: 0x4000 | 250)], at: $0) }
        let noteAt = block.count - (2 + 12 + 4 + 92)
        XCTAssertEqual(Array(block[noteAt..<noteAt + 4]), [1, 0, 1, 0], "the notes' first entry")
        block[noteAt] = 0xFF
        block[noteAt + 1] = 0xFF
        let metadata = try MetadataReader.read(bytes: EXIFBytes.jpeg(tiff: block), name: "cut.jpg")
        XCTAssertEqual(metadata.make, "Canon")
        XCTAssertEqual(metadata.width, 40)
        XCTAssertNil(metadata.iso)
        XCTAssertTrue(metadata.warnings.contains { $0.hasPrefix("Canon maker notes:") && $0.contains("absurd") }, "\(metadata.warnings)")
    }

    func testNikonISOAsExiftoolPrintsIt() throws {
        let metadata = try check("nikon.jpg", Self.exif(make: "NIKON CORPORATION") { _ in
            let inner = [0x49, 0x49, 0x2A, 0x00] + EXIFBytes.le32(8) + Self.ifd([(0x0002, 3, 2, Self.le16s([0, 200]))], at: 8)
            return Array("Nikon\0".utf8) + [0x02, 0x10, 0x00, 0x00] + inner
        }, iso: .text("0 200"))
        XCTAssertEqual(metadata.iso, 200)
        XCTAssertEqual(metadata.sources["ISO"], .makerNotes)
        XCTAssertEqual(Exposure(metadata).iso, 200)
    }

    func testCasioISOInBothKindsOfNotes() throws {
        let first = try check("casio1.jpg", Self.exif(make: "CASIO") { Self.ifd([(0x0014, 3, 1, EXIFBytes.le16(64))], at: $0) },
                              iso: .number(64))
        XCTAssertEqual(first.iso, 64)
        let second = try check("casio2.jpg", Self.exif(make: "CASIO COMPUTER CO.,LTD.") {
            Array("QVC\0\0\0".utf8) + Self.ifd([(0x3014, 3, 1, EXIFBytes.le16(50))], at: $0 + 6)
        }, iso: .number(50))
        XCTAssertEqual(second.iso, 50)
        // The later notes' 0x0014 is a code (6 for ISO 100), printed as the code by exiftool's -n: not a speed.
        let code = try check("casio3.jpg", Self.exif(make: "CASIO COMPUTER CO.,LTD.") {
            Array("QVC\0\0\0".utf8) + Self.ifd([(0x0014, 3, 1, EXIFBytes.le16(6)), (0x3014, 3, 1, EXIFBytes.le16(100))], at: $0 + 6)
        }, iso: .number(6))
        XCTAssertNil(code.iso)
        XCTAssertEqual(Exposure(code).iso, nil)
    }

    func testOptioAndOlympusNotes() throws {
        let optio = try check("optio.jpg", Self.exif(make: "Asahi Optical Co.,Ltd") { Self.ifd([(0x0014, 3, 1, EXIFBytes.le16(100))], at: $0) },
                              iso: .number(100))
        XCTAssertEqual(optio.iso, 100)
        // Olympus: offsets count from the notes' start; the Equipment IFD follows the main one.
        let olympus = try check("olympus.jpg", Self.exif(make: "OLYMPUS IMAGING CORP.") { _ in
            let main = Self.ifd([(0x2010, 13, 1, EXIFBytes.le32(30))], at: 12)
            let equipment = Self.ifd([(0x0203, 2, 20, Array("OLYMPUS M.17mm F1.8\0".utf8))], at: 30)
            return Array("OLYMPUS\0II".utf8) + [0x03, 0x00] + main + equipment
        }, iso: nil, lens: "OLYMPUS M.17mm F1.8")
        XCTAssertEqual(olympus.sources["LensModel"], .makerNotes)
    }

    /// Where shoebox is right and exiftool is not: Pentax's notes keep an ISO *index* (9 for ISO
    /// 200), and `exiftool -n` prints it over the standard ISO the camera also wrote. Shoebox keeps
    /// the standard ISO, the speed.
    func testPentaxISOIndexDoesNotReplaceTheStandardISO() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("pentax.jpg")
        let block = Self.exif(make: "PENTAX Corporation", iso: 200) { Array("AOC\0II".utf8) + Self.ifd([(0x0014, 3, 1, EXIFBytes.le16(9))], at: $0 + 6) }
        try Data(EXIFBytes.jpeg(tiff: block)).write(to: url)
        let oracle = try MetadataFixtures.run("/usr/bin/exiftool", ["-json", "-n", "-ISO", url.path])
        let object = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(oracle.utf8)) as? [[String: Any]])?.first)
        XCTAssertEqual(object["ISO"] as? Int, 9, "exiftool -n prints Pentax's index")
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.iso, 200)
        XCTAssertNil(metadata.isoAsWritten)
        XCTAssertNil(metadata.sources["ISO"])
    }

    /// Kodak's measured exposure, which exiftool prints over EXIF's nominal one.
    func testKodakBinaryNotes() throws {
        func kodak(_ name: String, _ note: [UInt8]) throws -> PhotoMetadata {
            let url = try makeTemporaryDirectory(self).appendingPathComponent(name)
            try Data(EXIFBytes.jpeg(tiff: Self.exif(make: "EASTMAN KODAK COMPANY") { _ in note })).write(to: url)
            let metadata = try MetadataReader.read(path: url.path)
            // exiftool also finds a (zero) capture date in these notes; the exposure is compared.
            let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
            XCTAssertEqual(metadata.exposureTime, oracle["ExposureTime"] as? Double, name)
            XCTAssertEqual(metadata.fNumber, oracle["FNumber"] as? Double, name)
            XCTAssertEqual(metadata.exiftoolFields.first { $0.key == "ISO" }?.value, (oracle["ISO"] as? Double).map { .number($0) }, name)
            return metadata
        }
        func be(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        // "KDK INFO", big-endian, fields 8 bytes on: FNumber 0x1E, ExposureTime 0x20, ISO 0x60.
        var main = Array("KDK INFO".utf8) + [UInt8](repeating: 0, count: 0x62)
        main.replaceSubrange(8 + 0x1E..<8 + 0x20, with: be(673, 2))
        main.replaceSubrange(8 + 0x20..<8 + 0x24, with: be(464, 4))
        main.replaceSubrange(8 + 0x60..<8 + 0x62, with: be(108, 2))
        let first = try kodak("kdk.jpg", main)
        XCTAssertEqual(first.fNumber, 6.73)
        XCTAssertEqual(first.exposureTime, 0.00464)
        XCTAssertEqual(first.iso, 108)
        XCTAssertEqual(first.sources["ExposureTime"], .makerNotes)
        // Type 3 (byte 12 is 7): ExposureTime 0x38, FNumber 0x3C, ISO 0x4E, where 65535 is "not known".
        var third = [UInt8](repeating: 0, count: 0x50)
        third[12] = 7
        third.replaceSubrange(0x38..<0x3C, with: be(3111, 4))
        third.replaceSubrange(0x3C..<0x3E, with: be(390, 2))
        third.replaceSubrange(0x4E..<0x50, with: be(0xFFFF, 2))
        let dc240 = try kodak("dc240.jpg", third)
        XCTAssertEqual(dc240.exposureTime, 0.03111)
        XCTAssertEqual(dc240.fNumber, 3.9)
        XCTAssertNil(dc240.iso)
        XCTAssertEqual(dc240.isoAsWritten, .number(65535))
    }

    /// Minolta's CameraSettings words (big-endian) give the exposure EXIF left out.
    func testMinoltaCameraSettings() throws {
        var words = [UInt8](repeating: 0, count: 56 * 4)
        words[9 * 4 + 3] = 104  // 2^((48 - 104) / 8) = 1/128 s
        words[10 * 4 + 3] = 44  // 2^((44 - 8) / 16) = f/4.757
        let url = try makeTemporaryDirectory(self).appendingPathComponent("minolta.jpg")
        try Data(EXIFBytes.jpeg(tiff: Self.exif(make: "Minolta Co., Ltd.") { Self.ifd([(0x0003, 7, words.count, words)], at: $0) })).write(to: url)
        let metadata = try MetadataReader.read(path: url.path)
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        XCTAssertEqual(metadata.exposureTime, 0.0078125)
        XCTAssertEqual(try XCTUnwrap(oracle["ExposureTime"] as? Double), 0.0078125)
        XCTAssertEqual(try XCTUnwrap(metadata.fNumber), try XCTUnwrap(oracle["FNumber"] as? Double), accuracy: 1e-12)
        XCTAssertEqual(metadata.sources["FNumber"], .makerNotes)
    }

    /// Phase One's notes give the image's size (an IIQ's IFD0 says 1 × 1) and the lens.
    func testPhaseOneSizeAndLens() throws {
        func le32(_ v: Int) -> [UInt8] { EXIFBytes.le32(v) }
        let lens = Array("Mamiya LS 80mm f/2.8 D\0\0".utf8)
        let directory = 16, entries = 3
        let lensAt = directory + 8 + 16 * entries
        var note = Array("IIII".utf8) + [0x43] + Array("waR".utf8) + le32(directory) + le32(0)
        note += le32(entries) + le32(0)
        note += le32(0x010C) + le32(4) + le32(4) + le32(7320)
        note += le32(0x010D) + le32(4) + le32(4) + le32(5484)
        note += le32(0x0412) + le32(1) + le32(lens.count) + le32(lensAt)
        note += lens
        let metadata = try check("leaf.jpg", Self.exif(make: "Leaf") { _ in note }, iso: nil, lens: "Mamiya LS 80mm f/2.8 D")
        XCTAssertEqual(metadata.width, 7320)
        XCTAssertEqual(metadata.height, 5484)
        // A directory offset past the notes: a warning, nothing taken.
        var broken = note
        broken.replaceSubrange(8..<12, with: le32(1 << 20))
        let damaged = try MetadataReader.read(bytes: EXIFBytes.jpeg(tiff: Self.exif(make: "Leaf") { _ in broken }), name: "broken.jpg")
        XCTAssertEqual(damaged.width, 40)
        XCTAssertTrue(damaged.warnings.contains { $0.hasPrefix("Phase One maker notes: directory offset") }, "\(damaged.warnings)")
    }

    /// Reconyx trail cameras write no EXIF date: the notes' capture time dates the photo.
    func testReconyxCaptureTime() throws {
        var note: [UInt8] = [0x01, 0xF1, 0x03, 0x00] + [UInt8](repeating: 0, count: 60)
        // Word 11 on: seconds, minutes, hours, month, day, year.
        note.replaceSubrange(22..<34, with: Self.le16s([5, 4, 10, 3, 16, 2020]))
        let url = try makeTemporaryDirectory(self).appendingPathComponent("trail.jpg")
        try Data(EXIFBytes.jpeg(tiff: Self.exif(make: "RECONYX") { _ in note })).write(to: url)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.dateTimeOriginal, "2020:03:16 10:04:05")
        XCTAssertEqual(metadata.sources["DateTimeOriginal"], .makerNotes)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata, modified: 0), CaptureDate(takenAt: "2020:03:16 10:04:05", source: .makerNotes))
        // Words written big-endian by some firmware are turned around, as exiftool does.
        note.replaceSubrange(22..<34, with: [5, 4, 10, 3, 16, 2020].flatMap { EXIFBytes.be16($0) })
        let swapped = try MetadataReader.read(bytes: EXIFBytes.jpeg(tiff: Self.exif(make: "RECONYX") { _ in note }), name: "swapped.jpg")
        XCTAssertEqual(swapped.dateTimeOriginal, "2020:03:16 10:04:05")
    }
}
