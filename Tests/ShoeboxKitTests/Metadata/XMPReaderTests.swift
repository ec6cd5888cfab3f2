import XCTest
@testable import ShoeboxKit

/// XMP packets (read with Exempi) fill what EXIF leaves out, agree with `exiftool -json -n`,
/// say where each value came from, and date a photo whose EXIF does not.
final class XMPReaderTests: XCTestCase {
    /// The tags an editor or a scanner's software leaves in XMP only (exiftool writes them there).
    static let xmpTags = [
        "-XMP-exif:DateTimeOriginal=2019:05:01 10:20:30+02:00", "-XMP-tiff:Make=Nikon", "-XMP-tiff:Model=NIKON D850",
        "-XMP-exifEX:LensModel=AF-S 24-70mm f/2.8E", "-XMP-exif:ExposureTime=1/250", "-XMP-exif:FNumber=2.8",
        "-XMP-exif:ISO=400", "-XMP-exif:FocalLength=50", "-XMP-exif:GPSLatitude=33.8568 S",
        "-XMP-exif:GPSLongitude=151.2153 E", "-XMP-exif:GPSAltitude=12.5", "-XMP-exif:GPSAltitudeRef#=1", "-XMP-tiff:Orientation#=6", "-XMP-tiff:Software=Scanner 2.1",
        "-XMP-photoshop:DateCreated=2019:05:01",
    ]

    private func tagged(_ name: String, in folder: URL, _ arguments: [String]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try MetadataFixtures.makeImage(url, width: 40, height: 30)
        try MetadataFixtures.run("/usr/bin/exiftool", ["-q", "-q", "-overwrite_original", "-all="] + arguments + [url.path])
        return url
    }

    func testXMPOnlyFilesAgreeWithExiftoolInEveryContainerAndSayTheirSource() throws {
        let folder = try makeTemporaryDirectory(self)
        // JPEG: an APP1 segment; PNG: an iTXt chunk, plain and (-z) compressed; WebP: an XMP chunk;
        // TIFF: IFD0's XMLPacket (tag 700); HEIC and AVIF: a "mime" item of type application/rdf+xml.
        let files = [
            try tagged("scan.jpg", in: folder, Self.xmpTags),
            try tagged("scan.png", in: folder, Self.xmpTags),
            try tagged("zipped.png", in: folder, ["-z"] + Self.xmpTags),
            try tagged("scan.webp", in: folder, Self.xmpTags),
            try tagged("scan.tif", in: folder, Self.xmpTags),
            try tagged("phone.heic", in: folder, Self.xmpTags),
            try tagged("phone.avif", in: folder, Self.xmpTags),
        ]
        let oracle = try MetadataFixtures.exiftool(files)
        for url in files {
            let expected = try XCTUnwrap(oracle[url.path])
            XCTAssertEqual(expected["DateTimeOriginal"] as? String, "2019:05:01 10:20:30+02:00", "fixture \(url.lastPathComponent)")
            let metadata = try MetadataReader.read(path: url.path)
            XCTAssertEqual(metadata.warnings, [], url.lastPathComponent)
            assertMatchesExiftool(metadata, expected)
            XCTAssertEqual(metadata.gps?.latitude ?? 0, -33.8568, accuracy: 1e-6, "south is negative")
            XCTAssertEqual(metadata.gpsAltitude ?? 0, -12.5, accuracy: 0.01, "below sea level")
            // Every value but the pixel size came from XMP, and says so (a TIFF's IFD0 has an Orientation of its own).
            let keys = metadata.exiftoolFields.map(\.key).filter { !["ImageWidth", "ImageHeight"].contains($0) }
            XCTAssertEqual(keys.count, 14, url.lastPathComponent)
            for key in keys where !(key == "Orientation" && url.pathExtension == "tif") {
                XCTAssertEqual(metadata.sources[key], .xmp, "\(key) of \(url.lastPathComponent)")
            }
            XCTAssertEqual(metadata.bestCaptureDate, "2019:05:01 10:20:30+02:00")
        }
    }

    /// Where EXIF and XMP both have a value, EXIF's is reported (as exiftool's JSON does) and
    /// dates the photo; XMP fills only the gaps.
    func testEXIFWinsWhereBothHaveAValue() throws {
        let folder = try makeTemporaryDirectory(self)
        let url = try tagged("both.jpg", in: folder, [
            "-EXIF:Make=Canon", "-EXIF:Model=Canon EOS R5", "-EXIF:DateTimeOriginal=2021:06:07 08:09:10",
            "-XMP-tiff:Make=Nikon", "-XMP-exif:DateTimeOriginal=2019:05:01 10:20:30", "-XMP-exifEX:LensModel=RF 50mm",
        ])
        let metadata = try MetadataReader.read(path: url.path)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        XCTAssertEqual(metadata.make, "Canon")
        XCTAssertNil(metadata.sources["Make"])
        XCTAssertEqual(metadata.lensModel, "RF 50mm")
        XCTAssertEqual(metadata.sources["LensModel"], .xmp)
        let dated = CaptureDate.forDownload(metadata: metadata, lastModified: nil, downloadedAt: 0)
        XCTAssertEqual(dated, CaptureDate(takenAt: "2021:06:07 08:09:10", source: .exif))
    }

    /// The dating chain: EXIF, then XMP's DateTimeOriginal, CreateDate and DateCreated, then the
    /// server's Last-Modified and the download time.
    func testTheDatingChainTriesXMPAfterEXIF() {
        var metadata = PhotoMetadata()
        let lastModified = "Tue, 03 Mar 2015 10:00:00 GMT"
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: lastModified).source, .lastModified)
        metadata.dateCreated = "2018:07:08"
        metadata.sources["DateCreated"] = .xmp
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: lastModified, downloadedAt: 0),
                       CaptureDate(takenAt: "2018:07:08 00:00:00", source: .xmp), "a day without a time")
        metadata.createDate = "2019:05:01 10:20+02:00"
        metadata.sources["CreateDate"] = .xmp
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: lastModified, downloadedAt: 0).takenAt,
                       "2019:05:01 10:20:00", "no seconds: the zone's hours are not taken for them")
        metadata.dateTimeOriginal = "0000:00:00 00:00:00"
        metadata.sources["DateTimeOriginal"] = .xmp
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: nil, downloadedAt: 0).takenAt,
                       "2019:05:01 10:20:00", "an unset clock's date is passed over")
        // A bare year or month names no day to file the photo under.
        var vague = PhotoMetadata()
        vague.dateCreated = "2019:05"
        vague.sources["DateCreated"] = .xmp
        XCTAssertEqual(CaptureDate.forFile(metadata: vague, modified: 0).source, .fileTime)
        // An EXIF date, even DateTime alone, comes first.
        metadata.modifyDate = "2020:01:02 03:04:05"
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata, modified: 0), CaptureDate(takenAt: "2020:01:02 03:04:05", source: .exif))
    }

    func testXMPDatesInBothForms() {
        XCTAssertEqual(XMPDate.exiftoolForm("2019-05-01T10:20:30.25+02:00"), "2019:05:01 10:20:30.25+02:00")
        XCTAssertEqual(XMPDate.exiftoolForm("2019-05-01T10:20Z"), "2019:05:01 10:20Z")
        XCTAssertEqual(XMPDate.exiftoolForm("2019-05-01"), "2019:05:01")
        XCTAssertEqual(XMPDate.exiftoolForm("2019"), "2019")
        XCTAssertEqual(XMPDate("2019-05-01T10:20:30-05:30")?.offset, "-05:30")
        XCTAssertEqual(XMPDate("2019-05-01T10:20Z")?.offset, "+00:00")
        XCTAssertEqual(XMPDate("2019:05:01 10:20:30+02:00")?.local, "2019:05:01 10:20:30")
        XCTAssertNil(XMPDate("2019-05")?.local)
        for bad in ["", "19-05-01", "2019-5-1", "2019-05-01T10", "2019-05-01T10:20:30+2", "2019-05-01 garbage", "２０１９"] {
            XCTAssertNil(XMPDate(bad), bad)
            XCTAssertNil(XMPDate.exiftoolForm(bad), bad)
        }
    }

    func testCoordinatesAndRationals() {
        XCTAssertEqual(XMPReader.coordinate("48,51.396N") ?? 0, 48.8566, accuracy: 1e-9)
        XCTAssertEqual(XMPReader.coordinate("2,21,7.92W") ?? 0, -2.3522, accuracy: 1e-9)
        XCTAssertNil(XMPReader.coordinate("48.8566"))
        XCTAssertNil(XMPReader.coordinate("48,-51N"))
        XCTAssertNil(XMPReader.coordinate("N"))
        XCTAssertEqual(XMPReader.rational("1/250"), 0.004)
        XCTAssertEqual(XMPReader.rational("50"), 50)
        XCTAssertNil(XMPReader.rational("1/0"))
        XCTAssertNil(XMPReader.rational("1/2/3"))
        XCTAssertNil(XMPReader.rational("nan"))
    }

    /// A packet that is not XML, or too large, is said in a warning; the rest of the file is read.
    func testABrokenPacketLeavesAWarningAndTheRestOfTheFile() throws {
        let folder = try makeTemporaryDirectory(self)
        let url = folder.appendingPathComponent("plain.jpg")
        try MetadataFixtures.makeImage(url, width: 40, height: 30)
        let jpeg = [UInt8](try Data(contentsOf: url))
        func withAPP1(_ payload: [UInt8]) -> [UInt8] {
            let segment = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
            return Array(jpeg[..<2]) + segment + Array(jpeg[2...])
        }
        let signature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
        for garbage in ["<x:xmpmeta", "not xml at all \u{0}\u{1}", "<a><b></a>", String(repeating: "<", count: 60_000)] {
            let metadata = try MetadataReader.read(bytes: withAPP1(signature + Array(garbage.utf8)), name: "broken.jpg")
            XCTAssertEqual(metadata.width, 40, "the pixel size is still read")
            XCTAssertTrue(metadata.warnings.contains { $0.hasPrefix("XMP packet is not well-formed RDF/XML") }, "\(metadata.warnings)")
            XCTAssertEqual(metadata.sources, [:])
        }
        // A shorter packet written over a longer one: the old tail follows the trailer (a corpus PNG
        // of metadata-extractor's "Issue 356"). Read up to the first trailer, as exiftool does.
        let packet = """
            <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
            xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
            xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:DateTimeOriginal="1988-12-01T18:53:44"/></rdf:RDF>\
            </x:xmpmeta><?xpacket end="r"?>li></rdf:Bag></x:xmpmeta><?xpacket end="w"?>
            """
        let overwritten = try MetadataReader.read(bytes: withAPP1(signature + Array(packet.utf8)), name: "overwritten.jpg")
        XCTAssertEqual(overwritten.warnings, [])
        XCTAssertEqual(overwritten.dateTimeOriginal, "1988:12:01 18:53:44")
        XCTAssertEqual(XMPReader.trimmedAtTrailer(Array("<a/>".utf8)), Array("<a/>".utf8))
        XCTAssertEqual(XMPReader.trimmedAtTrailer(Array("<a/><?xpacket end=".utf8)), Array("<a/><?xpacket end=".utf8))
        // An empty packet is no packet at all, and no warning either way is wrong: nothing is filled.
        let empty = try MetadataReader.read(bytes: withAPP1(signature), name: "empty.jpg")
        XCTAssertNil(empty.make)
        XCTAssertEqual(empty.sources, [:])
    }
}
