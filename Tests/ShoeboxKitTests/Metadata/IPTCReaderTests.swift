import XCTest
@testable import ShoeboxKit

/// A JPEG's IPTC record (Photoshop APP13 resources, read with libiptcdata) gives DateCreated
/// and TimeCreated when EXIF and XMP name no capture time, agreeing with `exiftool -json -n`.
final class IPTCReaderTests: XCTestCase {
    private func jpeg(_ name: String, in folder: URL, _ arguments: [String]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try MetadataFixtures.makeImage(url, width: 40, height: 30)
        try MetadataFixtures.run("/usr/bin/exiftool", ["-q", "-q", "-overwrite_original", "-all="] + arguments + [url.path])
        return url
    }

    func testIPTCOnlyJPEGAgreesWithExiftoolAndIsDatedByIt() throws {
        let folder = try makeTemporaryDirectory(self)
        let url = try jpeg("press.jpg", in: folder, ["-IPTC:DateCreated=2019:05:01", "-IPTC:TimeCreated=10:20:30+02:00",
                                                     "-IPTC:By-line=Agency"])
        let oracle = try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path])
        XCTAssertEqual(oracle["DateCreated"] as? String, "2019:05:01", "fixture")
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.warnings, [])
        assertMatchesExiftool(metadata, oracle)
        XCTAssertEqual(metadata.timeCreated, "10:20:30+02:00")
        XCTAssertEqual(metadata.sources["DateCreated"], .iptc)
        XCTAssertEqual(metadata.sources["TimeCreated"], .iptc)
        // exiftool's Composite:DateTimeOriginal, joined from the two.
        XCTAssertEqual(metadata.dateTimeOriginal, "2019:05:01 10:20:30+02:00")
        XCTAssertEqual(metadata.sources["DateTimeOriginal"], .iptc)
        XCTAssertEqual(metadata.bestCaptureDate, "2019:05:01 10:20:30+02:00")
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: "Tue, 03 Mar 2015 10:00:00 GMT"),
                       CaptureDate(takenAt: "2019:05:01 10:20:30", source: .iptc))
        // A date without a time: the day at midnight.
        let dayOnly = try MetadataReader.read(path: try jpeg("day.jpg", in: folder, ["-IPTC:DateCreated=2018:07:08"]).path)
        XCTAssertEqual(CaptureDate.forFile(metadata: dayOnly, modified: 0), CaptureDate(takenAt: "2018:07:08 00:00:00", source: .iptc))
    }

    /// The chain: XMP's dates come before IPTC's, EXIF's before both.
    func testXMPAndEXIFComeFirst() throws {
        let folder = try makeTemporaryDirectory(self)
        let both = try jpeg("both.jpg", in: folder, ["-IPTC:DateCreated=2019:05:01", "-IPTC:TimeCreated=10:20:30",
                                                     "-XMP-exif:DateTimeOriginal=2017:01:02 03:04:05"])
        let metadata = try MetadataReader.read(path: both.path)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([both])[both.path]))
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata, modified: 0), CaptureDate(takenAt: "2017:01:02 03:04:05", source: .xmp))
        // XMP's DateCreated (with its own time) stands as DateCreated; DateTimeOriginal is still
        // the IPTC pair, as exiftool's composite takes IPTC's DateTimeCreated first.
        let press = try jpeg("press2.jpg", in: folder, ["-IPTC:DateCreated=2018:01:12", "-IPTC:TimeCreated=21:19:13+00:00",
                                                        "-XMP-photoshop:DateCreated=2018:01:12 21:19:13"])
        let pressMetadata = try MetadataReader.read(path: press.path)
        assertMatchesExiftool(pressMetadata, try XCTUnwrap(try MetadataFixtures.exiftool([press])[press.path]))
        XCTAssertEqual(pressMetadata.dateTimeOriginal, "2018:01:12 21:19:13+00:00")
        XCTAssertEqual(pressMetadata.sources["DateTimeOriginal"], .iptc)
        let all = try jpeg("all.jpg", in: folder, ["-IPTC:DateCreated=2019:05:01", "-EXIF:DateTimeOriginal=2016:02:03 04:05:06"])
        XCTAssertEqual(CaptureDate.forFile(metadata: try MetadataReader.read(path: all.path), modified: 0).source, .exif)
    }

    func testIPTCFormsAndBrokenRecords() throws {
        XCTAssertEqual(IPTCReader.dateForm("20190501"), "2019:05:01")
        XCTAssertNil(IPTCReader.dateForm("2019050"))
        XCTAssertNil(IPTCReader.dateForm("2019-5-1"))
        XCTAssertEqual(IPTCReader.timeForm("102030+0200"), "10:20:30+02:00")
        XCTAssertEqual(IPTCReader.timeForm("102030"), "10:20:30")
        XCTAssertNil(IPTCReader.timeForm("1020"))
        XCTAssertNil(IPTCReader.timeForm("102030*0200"))
        // An APP13 segment whose resources run past their end: a warning, and the rest of the file.
        let folder = try makeTemporaryDirectory(self)
        let url = folder.appendingPathComponent("plain.jpg")
        try MetadataFixtures.makeImage(url, width: 40, height: 30)
        let jpeg = [UInt8](try Data(contentsOf: url))
        let payload = Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0x1C, 0x02]
        let segment = [0xFF, 0xED, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let metadata = try MetadataReader.read(bytes: Array(jpeg[..<2]) + segment + Array(jpeg[2...]), name: "broken.jpg")
        XCTAssertEqual(metadata.width, 40)
        XCTAssertTrue(metadata.warnings.contains { $0.contains("APP13") }, "\(metadata.warnings)")
        XCTAssertNil(metadata.dateCreated)
    }
}
