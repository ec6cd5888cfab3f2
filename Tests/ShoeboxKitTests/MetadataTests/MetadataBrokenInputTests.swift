import Foundation
import XCTest
@testable import ShoeboxKit

/// Broken input gives errors or warnings plus whatever could be read; never a crash or a hang.
final class MetadataBrokenInputTests: XCTestCase {
    private func read(_ bytes: [UInt8]) throws -> PhotoMetadata {
        try MetadataReader.read(bytes: bytes, name: "test.jpg", includeAllTags: true)
    }

    /// 65 KB of IFD0 text (description, artist, copyright) before the ExifIFD and GPS values,
    /// in a TIFF (no 64 KiB segment limit). Before, values were admitted in reading order
    /// against a budget, and the capture time and position of this legal file were dropped.
    func testLongIFD0TextDoesNotCrowdOutTheCaptureTimeAndPosition() throws {
        typealias B = EXIFBytes
        let description = [UInt8](repeating: UInt8(ascii: "d"), count: 22_999) + [0]
        let artist = [UInt8](repeating: UInt8(ascii: "a"), count: 23_999) + [0]
        let copyright = [UInt8](repeating: UInt8(ascii: "c"), count: 18_399) + [0]
        let tail = 74, exifIFD = tail + 23_000 + 24_000 + 18_400, gpsIFD = exifIFD + 18 + 20
        let ifd0 = [B.entry(0x010E, 2, description.count, B.le32(tail)), B.entry(0x013B, 2, artist.count, B.le32(tail + 23_000)),
                    B.entry(0x8298, 2, copyright.count, B.le32(tail + 47_000)),
                    B.entry(0x8769, 4, 1, B.le32(exifIFD)), B.entry(0x8825, 4, 1, B.le32(gpsIFD))]
        let date = Array("2024:01:02 03:04:05".utf8) + [0]
        let exif = B.le16(1) + B.entry(0x9003, 2, 20, B.le32(exifIFD + 18)) + B.le32(0) + date
        let gpsValues = gpsIFD + 2 + 4 * 12 + 4
        let gps = B.le16(4) + B.entry(1, 2, 2, Array("S".utf8) + [0]) + B.entry(2, 5, 3, B.le32(gpsValues))
            + B.entry(3, 2, 2, Array("W".utf8) + [0]) + B.entry(4, 5, 3, B.le32(gpsValues + 24)) + B.le32(0)
            + B.rationals([(10, 1), (0, 1), (0, 1)]) + B.rationals([(20, 1), (0, 1), (0, 1)])
        let tiff = B.tiff(ifd0, tail: description + artist + copyright + exif + gps)
        XCTAssertEqual(B.tailOffset(entries: 5), tail)
        let metadata = try MetadataReader.read(bytes: tiff, name: "long-text.tif", includeAllTags: true)
        XCTAssertEqual(metadata.dateTimeOriginal, "2024:01:02 03:04:05", "\(metadata.warnings)")
        XCTAssertEqual(metadata.gps?.latitude, -10)
        XCTAssertEqual(metadata.gps?.longitude, -20)
        XCTAssertTrue(metadata.warnings.contains { $0.hasSuffix("1 value (24000 bytes) left out, the largest first: an EXIF block holds 64 KiB at most") },
                      "\(metadata.warnings)")
        XCTAssertEqual(metadata.tags.first { $0.name == "Artist" }?.value, "(24000 bytes, not decoded)", "listed by --all as left out")
        XCTAssertEqual(metadata.tags.first { $0.name == "Copyright" }?.value.count, 18_399, "the smaller texts stay")
        XCTAssertFalse(metadata.warnings.contains { $0.contains("past end of buffer") }, "the block fits libexif: \(metadata.warnings)")
    }

    /// Many small tags and long text: every byte of the compact block counts (tables and
    /// padding too), or libexif stops reading at 64 KiB and the capture time is lost.
    func testTablesAndPaddingCountAgainstTheBlockLimit() throws {
        typealias B = EXIFBytes
        let small = (0..<800).map { B.entry(0xC000 + $0, 3, 1, B.le16($0)) }
        let texts = 3, textLength = 19_001  // odd: each is padded by a byte
        let tail = B.tailOffset(entries: small.count + texts + 1)
        var values: [UInt8] = []
        var entries = small
        for index in 0..<texts {
            entries.append(B.entry(0x010E + index, 2, textLength, B.le32(tail + values.count)))
            values += [UInt8](repeating: UInt8(ascii: "t"), count: textLength - 1) + [0, 0]
        }
        let exifIFD = tail + values.count
        entries.append(B.entry(0x8769, 4, 1, B.le32(exifIFD)))
        let date = Array("2025:06:07 08:09:10".utf8) + [0]
        let exif = B.le16(1) + B.entry(0x9003, 2, 20, B.le32(exifIFD + 18)) + B.le32(0) + date
        let metadata = try MetadataReader.read(bytes: B.tiff(entries, tail: values + exif), name: "many-tags.tif")
        XCTAssertEqual(metadata.dateTimeOriginal, "2025:06:07 08:09:10", "\(metadata.warnings)")
        XCTAssertFalse(metadata.warnings.contains { $0.contains("past end of buffer") || $0.contains("block too large") },
                       "\(metadata.warnings)")
    }

    /// Before, a signed value with its reference was negated twice: 50 m above sea level.
    func testSignedGPSValuesWithSouthWestAndBelowSeaLevelStayNegative() throws {
        typealias B = EXIFBytes
        let gpsIFD = 8 + 2 + 12 + 4
        let values = gpsIFD + 2 + 6 * 12 + 4
        let gps = B.le16(6) + B.entry(1, 2, 2, Array("S".utf8) + [0]) + B.entry(2, 10, 3, B.le32(values))
            + B.entry(3, 2, 2, Array("W".utf8) + [0]) + B.entry(4, 10, 3, B.le32(values + 24))
            + B.entry(5, 1, 1, [1]) + B.entry(6, 10, 1, B.le32(values + 48)) + B.le32(0)
            + B.rationals([(-10, 1), (0, 1), (0, 1)]) + B.rationals([(-20, 1), (0, 1), (0, 1)]) + B.rationals([(-50, 1)])
        let tiff = B.tiff([B.entry(0x8825, 4, 1, B.le32(gpsIFD))], tail: gps)
        let metadata = try read(B.jpeg(tiff: tiff))
        XCTAssertEqual(metadata.gps?.latitude, -10, "\(metadata.warnings)")
        XCTAssertEqual(metadata.gps?.longitude, -20)
        XCTAssertEqual(metadata.gps?.altitude, -50)
    }

    /// Before, a malformed position (zero denominators) took the altitude with it; exiftool
    /// still reports GPSAltitude (-125.5) beside its empty GPSLatitude and GPSLongitude.
    func testAltitudeIsKeptBesideAMalformedPosition() throws {
        typealias B = EXIFBytes
        let gpsIFD = 8 + 2 + 12 + 4
        let values = gpsIFD + 2 + 6 * 12 + 4
        let gps = B.le16(6) + B.entry(1, 2, 2, Array("N".utf8) + [0]) + B.entry(2, 5, 3, B.le32(values))
            + B.entry(3, 2, 2, Array("E".utf8) + [0]) + B.entry(4, 5, 3, B.le32(values + 24))
            + B.entry(5, 1, 1, [1]) + B.entry(6, 5, 1, B.le32(values + 48)) + B.le32(0)
            + B.rationals([(10, 0), (0, 0), (0, 0)]) + B.rationals([(20, 0), (0, 0), (0, 0)]) + B.rationals([(251, 2)])
        let jpeg = B.jpeg(tiff: B.tiff([B.entry(0x8825, 4, 1, B.le32(gpsIFD))], tail: gps))
        let url = try makeTemporaryDirectory(self).appendingPathComponent("malformed-position.jpg")
        try Data(jpeg).write(to: url)
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        XCTAssertEqual(oracle["GPSAltitude"] as? Double, -125.5)
        XCTAssertEqual(oracle["GPSLatitude"] as? String, "", "exiftool has no number for it either")
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertNil(metadata.gps)
        XCTAssertEqual(metadata.gpsAltitude, -125.5)
        XCTAssertEqual(metadata.exiftoolFields.first { $0.key == "GPSAltitude" }?.value, .number(-125.5))
        XCTAssertTrue(metadata.warnings.contains("EXIF: GPS latitude/longitude are malformed; position ignored"), "\(metadata.warnings)")
    }

    /// The odd values of the tags exiftool converts, as exiftool reads them: a ShutterSpeedValue
    /// stored unsigned is read signed (-5 gives 32 s), a zero denominator gives 0; an aperture
    /// with a zero denominator ("Inf" to exiftool) is left out; GPSTimeStamp rounds its seconds
    /// to 10 significant digits and keeps up to nine decimals; XP text ends at its first NUL.
    func testConvertedTagsEdgeCasesAsExiftoolReadsThem() throws {
        typealias B = EXIFBytes
        let directory = try makeTemporaryDirectory(self)
        let ucs2 = { (text: String) -> [UInt8] in text.utf16.flatMap { B.le16(Int($0)) } }
        let title: [UInt8] = ucs2("Title") + [0, 0] + ucs2("after") + [0x78]
        let cases: [(name: String, tiff: [UInt8], expected: [String: String])] = [
            ("negative-apex", B.tiff(values: [(0x9201, 5, 1, B.le32(-5 & 0xFFFF_FFFF) + B.le32(1)), (0x9202, 5, 1, B.rationals([(3, 0)])),
                                              (0x9205, 3, 1, B.le16(4)), (0x9C9B, 1, title.count, title)]),
             ["ShutterSpeedValue": "32", "MaxApertureValue": "4", "XPTitle": "Title"]),
            ("zero-denominator", B.tiff(values: [(0x9201, 10, 1, B.rationals([(3, 0)]))]), ["ShutterSpeedValue": "0"]),
        ] + [("time-1", [(9, 1), (54, 1), (2825, 100)], "09:54:28.25"), ("time-2", [(23, 1), (59, 1), (4_294_967_279, 71_582_788)], "23:59:59.99999999"),
             ("time-3", [(9, 1), (0, 1), (1, 3)], "09:00:00.333333333"), ("time-4", [(1, 2), (0, 1), (0, 1)], "00:30:00")].map { name, time, text in
            let gpsIFD = 8 + 2 + 12 + 4
            let gps = B.le16(1) + B.entry(7, 5, 3, B.le32(gpsIFD + 2 + 12 + 4)) + B.le32(0) + B.rationals(time)
            return (name, B.tiff([B.entry(0x8825, 4, 1, B.le32(gpsIFD))], tail: gps), ["GPSTimeStamp": text])
        }
        let urls = try cases.map { item -> URL in
            let url = directory.appendingPathComponent(item.name + ".jpg")
            try Data(B.jpeg(tiff: item.tiff)).write(to: url)
            return url
        }
        let json = try MetadataFixtures.run("/usr/bin/exiftool", ["-json", "-n", "-a", "-G1"] + urls.map(\.path))
        let oracle = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        for (item, url) in zip(cases, urls) {
            let theirs = try XCTUnwrap(oracle.first { $0["SourceFile"] as? String == url.path }, item.name)
            let tags = try MetadataReader.read(path: url.path, includeAllTags: true).tags
            for (key, expected) in item.expected {
                let group = key == "GPSTimeStamp" ? "GPS" : "IFD0"
                XCTAssertEqual(theirs["\(group):\(key)"].map { "\($0)" }, expected, "exiftool, \(item.name)")
                // libexif names the ExifIFD tags in IFD0 by number; the value is what counts.
                let id: UInt16 = ["ShutterSpeedValue": 0x9201, "MaxApertureValue": 0x9205, "XPTitle": 0x9C9B, "GPSTimeStamp": 7][key]!
                XCTAssertEqual(tags.first { $0.group == group && $0.id == id }?.value, expected, "\(item.name) \(key)")
            }
        }
        let first = try MetadataReader.read(path: urls[0].path, includeAllTags: true).tags
        XCTAssertNil(first.first { $0.id == 0x9202 }, "exiftool says Inf: left out")
        XCTAssertEqual(oracle.first { $0["SourceFile"] as? String == urls[0].path }?["IFD0:ApertureValue"] as? String, "Inf")
    }

    /// Before, a tag in the other main IFD was not looked at: this photo had no capture time.
    func testTagsWrittenInTheOtherMainIFDAreRead() throws {
        typealias B = EXIFBytes
        let tail = B.tailOffset(entries: 3)
        let date = Array("2003:04:05 06:07:08".utf8) + [0], lens = Array("Old Zoom".utf8) + [0]
        let exifIFD = tail + date.count + lens.count
        let ifd0 = [B.entry(0x9003, 2, date.count, B.le32(tail)), B.entry(0xA434, 2, lens.count, B.le32(tail + date.count)),
                    B.entry(0x8769, 4, 1, B.le32(exifIFD))]
        let exif = B.le16(2) + B.entry(0x0112, 3, 1, B.le16(6)) + B.entry(0x0132, 2, 4, Array("no\0\0".utf8)) + B.le32(0)
        let metadata = try read(B.jpeg(tiff: B.tiff(ifd0, tail: date + lens + exif)))
        XCTAssertEqual(metadata.dateTimeOriginal, "2003:04:05 06:07:08", "\(metadata.warnings)")
        XCTAssertEqual(metadata.lensModel, "Old Zoom")
        XCTAssertEqual(metadata.orientation, 6)
        XCTAssertEqual(metadata.modifyDate, "no")
    }

    /// Before, a value over 24 KiB vanished from --all without a trace, and an altitude
    /// reference written as the text "1" was read as above sea level.
    func testAHugeValueIsListedAndATextAltitudeReferenceCounts() throws {
        typealias B = EXIFBytes
        let tail = B.tailOffset(entries: 2)
        let huge = [UInt8](repeating: UInt8(ascii: "h"), count: 30_000)
        let gpsIFD = tail + huge.count
        let values = gpsIFD + 2 + 6 * 12 + 4
        let gps = B.le16(6) + B.entry(1, 2, 2, Array("N".utf8) + [0]) + B.entry(2, 5, 3, B.le32(values))
            + B.entry(3, 2, 2, Array("E".utf8) + [0]) + B.entry(4, 5, 3, B.le32(values + 24))
            + B.entry(5, 2, 2, Array("1".utf8) + [0]) + B.entry(6, 5, 1, B.le32(values + 48)) + B.le32(0)
            + B.rationals([(31, 1), (0, 1), (0, 1)]) + B.rationals([(35, 1), (0, 1), (0, 1)]) + B.rationals([(75, 2)])
        let tiff = B.tiff([B.entry(0x010E, 2, huge.count, B.le32(tail)), B.entry(0x8825, 4, 1, B.le32(gpsIFD))], tail: huge + gps)
        let metadata = try MetadataReader.read(bytes: tiff, name: "huge.tif", includeAllTags: true)
        XCTAssertEqual(metadata.tags.first { $0.name == "ImageDescription" }?.value, "(30000 bytes, not decoded)")
        XCTAssertEqual(metadata.gps?.altitude, -37.5, "\(metadata.warnings)")
    }

    /// Stray bytes are skipped only so far: garbage past the limit, endless fill bytes or
    /// 0xFF 0x00 pairs end the walk with a warning, and what was read before stays.
    func testSkippingBetweenSegmentsIsBounded() throws {
        typealias B = EXIFBytes
        let jpeg = B.jpeg(tiff: B.tiff([B.entry(0x0112, 3, 1, B.le16(6))]))
        let frame = try XCTUnwrap((2..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        let limit = JPEGContainer.maximumSkippedBytes
        for (name, filler) in [("garbage", [UInt8](repeating: 0x20, count: limit + 1)),
                               ("fill", [UInt8](repeating: 0xFF, count: limit + 2)),
                               ("stuffed", (0...limit / 2).flatMap { _ in [UInt8]([0xFF, 0x00]) })] {
            let metadata = try read(Array(jpeg[..<frame]) + filler + jpeg[frame...])
            XCTAssertEqual(metadata.orientation, 6, name)
            XCTAssertNil(metadata.width, name)
            XCTAssertTrue(metadata.warnings.contains { $0.contains("headers damaged") }, "\(name): \(metadata.warnings)")
        }
        let justUnder = try read(Array(jpeg[..<frame]) + [UInt8](repeating: 0x20, count: limit) + jpeg[frame...])
        XCTAssertEqual(justUnder.width, 40, "\(justUnder.warnings)")
        let toTheEnd = try read(Array(jpeg[..<frame]) + [0x12, 0x34])
        XCTAssertNil(toTheEnd.width)
        XCTAssertTrue(toTheEnd.warnings.contains { $0.contains("truncated") }, "\(toTheEnd.warnings)")
        XCTAssertThrowsError(try read([0xFF, 0xD8] + [UInt8](repeating: 0, count: 100)), "nothing read: damaged")
    }

    func testZeroByteFile() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("empty.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data()))
        XCTAssertThrowsError(try MetadataReader.read(path: url.path)) { error in
            XCTAssertEqual(error as? MetadataError, .empty(path: url.path))
            XCTAssertTrue("\(error)".contains(url.path))
        }
    }

    func testNonImageAndUnreadablePaths() throws {
        let directory = try makeTemporaryDirectory(self)
        let html = directory.appendingPathComponent("page.jpg")
        try Data("<!DOCTYPE html><title>404</title>".utf8).write(to: html)
        XCTAssertThrowsError(try MetadataReader.read(path: html.path)) { XCTAssertEqual($0 as? MetadataError, .notAnImage(path: html.path)) }
        XCTAssertThrowsError(try MetadataReader.read(path: directory.appendingPathComponent("missing.jpg").path)) {
            guard case .cannotOpen? = $0 as? MetadataError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try MetadataReader.read(path: html.path + "/below-a-file.jpg")) {
            guard case .cannotOpen(_, let reason)? = $0 as? MetadataError else { return XCTFail("\($0)") }
            XCTAssertTrue(reason.contains("Not a directory"), reason)
        }
        XCTAssertThrowsError(try MetadataReader.read(path: directory.path)) {
            XCTAssertEqual($0 as? MetadataError, .notRegularFile(path: directory.path))
        }
    }

    /// A FIFO must be refused at once, not waited on.
    func testFIFOIsRefusedWithoutWaiting() throws {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("pipe.jpg").path
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        XCTAssertThrowsError(try MetadataReader.read(path: path)) { XCTAssertEqual($0 as? MetadataError, .notRegularFile(path: path)) }
    }

    func testNonTerminatedASCIIIsReadToItsCount() throws {
        let tail = EXIFBytes.tailOffset(entries: 2)
        let block = EXIFBytes.tiff([
            EXIFBytes.ascii(0x010F, Array("Canon".utf8), at: tail),          // no NUL
            EXIFBytes.ascii(0x0110, Array("EOS".utf8), at: 0),               // inline, no NUL
        ], tail: Array("Canon".utf8))
        let metadata = try read(EXIFBytes.jpeg(tiff: block))
        XCTAssertEqual(metadata.make, "Canon")
        XCTAssertEqual(metadata.model, "EOS")
        XCTAssertEqual(metadata.width, 40)
        XCTAssertEqual(metadata.warnings, [])
    }

    func testPointerOutsideTheBlockGivesAWarningAndKeepsTheRest() throws {
        let tail = EXIFBytes.tailOffset(entries: 3)
        let block = EXIFBytes.tiff([
            EXIFBytes.ascii(0x010F, Array("Canon\0".utf8), at: tail),
            EXIFBytes.entry(0x8769, 4, 1, EXIFBytes.le32(0x7FFF_FFF0)),
            EXIFBytes.entry(0x8825, 4, 1, EXIFBytes.le32(0xFFFF_FFFF)),
        ], tail: Array("Canon\0".utf8))
        let metadata = try read(EXIFBytes.jpeg(tiff: block))
        XCTAssertEqual(metadata.make, "Canon")
        XCTAssertNil(metadata.gps)
        XCTAssertEqual(metadata.height, 30)
        XCTAssertTrue(metadata.warnings.contains { $0.contains("ExifIFD offset") && $0.contains("outside") }, "\(metadata.warnings)")
        XCTAssertTrue(metadata.warnings.contains { $0.contains("GPS offset") && $0.contains("outside") }, "\(metadata.warnings)")
    }

    func testValueOffsetOutsideTheBlockAndAbsurdCountsAreSkipped() throws {
        let block = EXIFBytes.tiff([
            EXIFBytes.entry(0x010F, 2, 40, EXIFBytes.le32(60_000)),          // Make: 40 bytes far past the end
            EXIFBytes.entry(0x0110, 5, 0x7FFF_FFFF, EXIFBytes.le32(8)),      // absurd count of rationals
            EXIFBytes.entry(0x0112, 3, 1, EXIFBytes.le16(6)),                // Orientation 6, fine
        ])
        let metadata = try read(EXIFBytes.jpeg(tiff: block))
        XCTAssertNil(metadata.make)
        XCTAssertNil(metadata.model)
        XCTAssertEqual(metadata.orientation, 6)
        XCTAssertEqual(metadata.warnings.filter { $0.contains("points outside") }.count, 2, "\(metadata.warnings)")
    }

    func testIFDsPointingBackIntoThemselvesDoNotLoop() throws {
        let exifOffset = EXIFBytes.tailOffset(entries: 2)
        // ExifIFD: one Interop pointer back to ExifIFD itself; IFD0's next-IFD points back to IFD0.
        let exifIFD = EXIFBytes.le16(2) + EXIFBytes.entry(0x829D, 4, 1, EXIFBytes.le32(0))
            + EXIFBytes.entry(0xA005, 4, 1, EXIFBytes.le32(exifOffset)) + EXIFBytes.le32(0)
        let block = EXIFBytes.tiff([
            EXIFBytes.entry(0x0112, 3, 1, EXIFBytes.le16(3)),
            EXIFBytes.entry(0x8769, 4, 1, EXIFBytes.le32(exifOffset)),
        ], next: 8, tail: exifIFD)
        let metadata = try read(EXIFBytes.jpeg(tiff: block))
        XCTAssertEqual(metadata.orientation, 3)
        XCTAssertTrue(metadata.tags.contains { $0.group == "ExifIFD" && $0.name == "FNumber" })
        XCTAssertEqual(metadata.warnings.filter { $0.contains("loop") }.count, 2, "\(metadata.warnings)")
    }

    /// An Exif pointer of TIFF type 13 ("IFD") is followed; an empty GPS IFD is legal and quiet.
    func testIFDTypedPointerAndEmptyIFD() throws {
        let exifOffset = EXIFBytes.tailOffset(entries: 2)
        let exifIFD = EXIFBytes.le16(1) + EXIFBytes.entry(0x829D, 5, 1, EXIFBytes.le32(exifOffset + 2 + 12 + 4))
            + EXIFBytes.le32(0) + EXIFBytes.le32(28) + EXIFBytes.le32(10)
        let gpsOffset = exifOffset + exifIFD.count
        let block = EXIFBytes.tiff([
            EXIFBytes.entry(0x8769, 13, 1, EXIFBytes.le32(exifOffset)),
            EXIFBytes.entry(0x8825, 4, 1, EXIFBytes.le32(gpsOffset)),
        ], tail: exifIFD + EXIFBytes.le16(0) + EXIFBytes.le32(0))
        let metadata = try read(EXIFBytes.jpeg(tiff: block))
        XCTAssertEqual(metadata.fNumber ?? 0, 2.8, accuracy: 1e-12)
        XCTAssertNil(metadata.gps)
        XCTAssertEqual(metadata.warnings, [])
    }

    func testAbsurdEntryCountIsRefused() throws {
        let block = EXIFBytes.tiff([EXIFBytes.entry(0x0112, 3, 1, EXIFBytes.le16(6))], declaredCount: 0xFFFF)
        let metadata = try read(EXIFBytes.jpeg(tiff: block))
        XCTAssertNil(metadata.orientation)
        XCTAssertEqual(metadata.width, 40)
        XCTAssertTrue(metadata.warnings.contains { $0.contains("absurd number of entries (65535)") }, "\(metadata.warnings)")
    }

    func testOutOfRangeGPSAndOrientationAreIgnoredWithWarnings() throws {
        let tail = EXIFBytes.tailOffset(entries: 2)
        let gpsOffset = tail
        let rationals = [200, 1, 0, 1, 0, 1].flatMap { EXIFBytes.le32($0) }
        let gps = EXIFBytes.le16(2) + EXIFBytes.entry(0x0002, 5, 3, EXIFBytes.le32(gpsOffset + 2 + 24 + 4))
            + EXIFBytes.entry(0x0004, 5, 3, EXIFBytes.le32(gpsOffset + 2 + 24 + 4)) + EXIFBytes.le32(0) + rationals
        let block = EXIFBytes.tiff([
            EXIFBytes.entry(0x0112, 3, 1, EXIFBytes.le16(9)),
            EXIFBytes.entry(0x8825, 4, 1, EXIFBytes.le32(gpsOffset)),
        ], tail: gps)
        let metadata = try read(EXIFBytes.jpeg(tiff: block))
        XCTAssertNil(metadata.orientation)
        XCTAssertNil(metadata.gps)
        XCTAssertEqual(metadata.warnings.count, 2, "\(metadata.warnings)")
    }

    /// Every prefix of a real tagged JPEG: an error or warnings until the headers are complete, then everything.
    func testEveryTruncationOfATaggedJPEG() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("tagged.jpg")
        try MetadataFixtures.makeImage(url)
        try MetadataFixtures.writeTags([(url, CameraTags.cameras[1])])
        let bytes = [UInt8](try Data(contentsOf: url))
        let full = try read(bytes)
        XCTAssertNotNil(full.gps)
        let scan = try XCTUnwrap((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            if length >= scan + 4 {
                XCTAssertEqual(try read(prefix), full, "cut at \(length)")
                continue
            }
            do {
                let metadata = try read(prefix)
                XCTAssertTrue(metadata.warnings.contains { $0.contains("truncated") },
                              "cut at \(length) of \(bytes.count): \(metadata.warnings)")
            } catch let error as MetadataError {
                XCTAssertTrue(error.description.contains("test.jpg"))
            }
        }
    }

    /// An EXIF block over 64 KiB (beyond libexif's reach) is compacted and still read.
    func testOversizedEXIFBlockInPNG() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("big.png")
        try MetadataFixtures.makeImage(url)
        var tags = CameraTags.cameras[3]
        tags.software = String(repeating: "S", count: 70_000)
        try MetadataFixtures.writeTags([(url, tags)])
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        XCTAssertGreaterThan((oracle["Software"] as? String)?.count ?? 0, 65_536)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.make, "SONY")
        XCTAssertEqual(metadata.gps?.latitude ?? 0, -0.000123, accuracy: 1e-6)
        XCTAssertEqual(metadata.gps?.altitude ?? 0, -415.5, accuracy: 0.01)
        XCTAssertEqual(metadata.dateTimeOriginal, tags.dateTimeOriginal)
    }

    /// A zTXt raw profile that inflates past the limit is said to be too large, not corrupt;
    /// a damaged one is corrupt.
    func testCompressedRawProfileTooLargeIsToldFromCorrupt() throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(b'\\n' * (17 << 20), 9))"]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let compressed = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        python.waitUntilExit()
        XCTAssertLessThan(compressed.count, 100_000)
        let keyword = Array("Raw profile type exif".utf8) + [0, 0]
        var warnings: [String] = []
        XCTAssertNil(PNGContainer.decodeTextChunk(type: "zTXt", keyword + compressed, warnings: &warnings))
        XCTAssertEqual(warnings, ["PNG zTXt \"Raw profile type exif\" chunk inflates past 16 MiB; its EXIF was not read"])
        warnings = []
        XCTAssertNil(PNGContainer.decodeTextChunk(type: "zTXt", keyword + compressed.prefix(2) + [0xFF, 0xFF, 0xFF], warnings: &warnings))
        XCTAssertEqual(warnings, ["PNG zTXt \"Raw profile type exif\" chunk does not inflate (corrupt zlib data)"])
    }

    /// A TIFF whose IFDs sit after a large strip of pixels (offsets past 64 KiB).
    func testTIFFWithIFDsAfterLargeImageData() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("large.tif")
        try MetadataFixtures.makeImage(url, width: 400, height: 300)
        try MetadataFixtures.writeTags([(url, CameraTags.cameras[2])])
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.warnings, [])
        assertMatchesExiftool(metadata, oracle)
    }
}
