import Foundation
import XCTest
@testable import ShoeboxKit

final class CaptureDateTests: XCTestCase {
    private func metadata(original: String? = nil, created: String? = nil, modified: String? = nil) -> PhotoMetadata {
        var metadata = PhotoMetadata()
        metadata.dateTimeOriginal = original
        metadata.createDate = created
        metadata.modifyDate = modified
        return metadata
    }

    private func record(takenAt: String?) -> OriginalRecord {
        OriginalRecord(sha256: "x", path: "originals/x.jpg", bytes: 1, contentType: "image/jpeg", takenAt: takenAt, addedAt: "t")
    }

    func testDateTimeOriginalWinsOverCreateDateOverModifyDate() {
        let all = metadata(original: "2021:01:01 01:01:01", created: "2022:02:02 02:02:02", modified: "2023:03:03 03:03:03")
        XCTAssertEqual(CaptureDate.written(in: all), ["2021:01:01 01:01:01", "2022:02:02 02:02:02", "2023:03:03 03:03:03"])
        XCTAssertEqual(CaptureDate.exif(all), "2021:01:01 01:01:01")
        XCTAssertEqual(CaptureDate.forDownload(metadata: all, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", downloadedAt: 0),
                       CaptureDate(takenAt: "2021:01:01 01:01:01", source: .exif))
        XCTAssertEqual(CaptureDate.forDownload(metadata: all, lastModified: nil).folder, "2021/01/01")

        let noOriginal = metadata(created: "2022:02:02 02:02:02", modified: "2023:03:03 03:03:03")
        XCTAssertEqual(CaptureDate.forDownload(metadata: noOriginal, lastModified: nil).takenAt, "2022:02:02 02:02:02")
        let onlyModified = metadata(modified: "2023:03:03 03:03:03")
        XCTAssertEqual(CaptureDate.forDownload(metadata: onlyModified, lastModified: nil).takenAt, "2023:03:03 03:03:03")
        XCTAssertEqual(CaptureDate.forDownload(metadata: onlyModified, lastModified: nil).source, .exif)
        XCTAssertEqual(all.bestCaptureDate, "2021:01:01 01:01:01", "inspect shows the first written, in the same order")
        XCTAssertEqual(noOriginal.bestCaptureDate, "2022:02:02 02:02:02")
    }

    func testImplausibleDateFallsToTheNextCandidate() {
        for bad in ["0000:00:00 00:00:00", "2021:02:30 10:00:00", "garbage", "    :  :     :  :  ", "", "1700:01:01 00:00:00"] {
            let withCreated = metadata(original: bad, created: "2018:01:02 03:04:05", modified: "2017:01:01 00:00:00")
            XCTAssertEqual(CaptureDate.forDownload(metadata: withCreated, lastModified: nil),
                           CaptureDate(takenAt: "2018:01:02 03:04:05", source: .exif), bad)
            XCTAssertEqual(withCreated.bestCaptureDate, bad, "inspect shows the date as written")
            let withModified = metadata(original: bad, created: bad, modified: "2017-01-01T09:08:07")
            XCTAssertEqual(CaptureDate.forDownload(metadata: withModified, lastModified: nil).takenAt, "2017:01:01 09:08:07", bad)
            XCTAssertEqual(CaptureDate.forDownload(metadata: withModified, lastModified: nil).folder, "2017/01/01", bad)
        }
    }

    func testLastModifiedDatesAPhotoWithoutAPlausibleEXIFDate() {
        let now: time_t = 1_730_000_000  // 2024-10-27
        for photo in [nil, PhotoMetadata(), metadata(original: "0000:00:00 00:00:00", modified: "no")] {
            let dated = CaptureDate.forDownload(metadata: photo, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", downloadedAt: now)
            XCTAssertEqual(dated, CaptureDate(takenAt: "2015:10:21 07:28:00", source: .lastModified))
            XCTAssertEqual(dated.folder, "2015/10/21")
        }
    }

    func testDownloadTimeDatesAPhotoWithNothingElse() {
        let now: time_t = 1_730_000_000  // 2024-10-27 03:33:20 UTC
        let fetched = CaptureDate(takenAt: "2024:10:27 03:33:20", source: .fetchTime)
        XCTAssertEqual(CaptureDate.forDownload(metadata: nil, lastModified: nil, downloadedAt: now), fetched)
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata(original: "0000:00:00 00:00:00"), lastModified: nil, downloadedAt: now), fetched)
        // An implausible Last-Modified (in the future; a year libcurl reads as two digits) is skipped too.
        XCTAssertEqual(CaptureDate.forDownload(metadata: nil, lastModified: "Fri, 01 Jan 2100 00:00:00 GMT", downloadedAt: now), fetched)
        XCTAssertEqual(CaptureDate.forDownload(metadata: nil, lastModified: "Sat, 01 Jan 0050 00:00:00 GMT", downloadedAt: now), fetched)
        XCTAssertEqual(CaptureDate.forDownload(metadata: nil, lastModified: "not a date", downloadedAt: now).folder, "2024/10/27")

        // A file reindex finds is dated by EXIF the same way, else by its modification time.
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata(original: "0000:00:00 00:00:00"), modified: now),
                       CaptureDate(takenAt: "2024:10:27 03:33:20", source: .fileTime))
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata(original: "bad", created: "2019-03-04T05:06:07"), modified: now),
                       CaptureDate(takenAt: "2019:03:04 05:06:07", source: .exif))
    }

    /// Verify must pick the same EXIF date fetch dated the original by. The dates are
    /// written in ISO form, so that verify's "recorded as written" allowance cannot hide
    /// a verify that picks another candidate (another order, no plausibility check).
    func testVerifyAndFetchAgreeOnWhichDateDatesAPhoto() {
        let cases: [(PhotoMetadata, String)] = [
            (metadata(original: "2021-05-06T07:08:09", created: "2020-01-01T10:00:00", modified: "2019-01-01T11:00:00"), "2021/05/06"),
            (metadata(original: "0000:00:00 00:00:00", created: "2020-01-01T10:00:00", modified: "2019-01-01T11:00:00"), "2020/01/01"),
            (metadata(original: "2021-02-30T10:00:00", created: "2020-01-01T10:00:00", modified: "2019-01-01T11:00:00"), "2020/01/01"),
            (metadata(original: "garbage", created: "2021-13-01T10:00:00", modified: "2019-01-01T11:00:00"), "2019/01/01"),
            (metadata(created: "2020-01-01T10:00:00", modified: "2019-01-01T11:00:00"), "2020/01/01"),
        ]
        for (photo, folder) in cases {
            let fetched = CaptureDate.forDownload(metadata: photo, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
            XCTAssertEqual(fetched.source, .exif)
            XCTAssertEqual(fetched.folder, folder, "\(photo)")
            XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: fetched.takenAt), read: photo), [],
                           "verify accepts the date fetch recorded: \(photo)")
            XCTAssertEqual(CaptureDate.forFile(metadata: photo, modified: 0), fetched, "reindex dates it the same way")
            // Any other plausible candidate (or another date) recorded instead is a finding.
            let others = CaptureDate.written(in: photo).compactMap(CaptureDate.canonical).filter { $0 != fetched.takenAt }
            for other in others + ["2000:01:01 00:00:00"] {
                XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: other), read: photo),
                               ["capture time '\(fetched.takenAt)' but recorded '\(other)'"], "\(photo)")
            }
        }
        // A photo fetch dated by a fallback has no EXIF date verify would compare.
        let undated = metadata(original: "0000:00:00 00:00:00", modified: "2021-02-30T00:00:00")
        let fetched = CaptureDate.forDownload(metadata: undated, lastModified: nil)
        XCTAssertEqual(fetched.source, .fetchTime)
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: fetched.takenAt), read: undated), [])
    }

    /// End to end through the file: reindex adopts a JPEG whose DateTimeOriginal is unset
    /// and whose CreateDate is in ISO form, records the date fetch would, and verify agrees.
    func testReindexedFileIsDatedAsFetchWouldAndVerifies() throws {
        let root = NSTemporaryDirectory() + "capture-date-tests-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let folder = root + "/originals/2020/01/01"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/photo.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(EXIFBytes.jpeg(tiff: Self.tiff(
            modifyDate: "2019-01-01T11:00:00", dateTimeOriginal: "0000:00:00 00:00:00", createDate: "2020-01-01T10:00:00")))))

        let read = try MetadataReader.read(path: path)
        XCTAssertEqual(CaptureDate.written(in: read), ["0000:00:00 00:00:00", "2020-01-01T10:00:00", "2019-01-01T11:00:00"], "\(read.warnings)")
        let fetched = CaptureDate.forDownload(metadata: read, lastModified: nil)
        XCTAssertEqual(fetched, CaptureDate(takenAt: "2020:01:01 10:00:00", source: .exif))

        let layout = LibraryLayout(root: root)
        XCTAssertEqual(try LibraryReindexer(layout: layout, jobs: 1).run().originalsFromFiles, 1)
        let record = try XCTUnwrap(try VerifyTestLibrary.dump(layout.catalog).0.first)
        XCTAssertEqual(record.takenAt, fetched.takenAt)
        XCTAssertEqual(record.datedBy, fetched.source)
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings, [])
    }

    /// IFD0 with DateTime and an ExifIFD pointer; the ExifIFD with DateTimeOriginal and
    /// CreateDate. Each date is 19 characters (20 bytes with its NUL).
    private static func tiff(modifyDate: String, dateTimeOriginal: String, createDate: String) -> [UInt8] {
        let text = { (date: String) -> [UInt8] in
            precondition(date.utf8.count == 19)
            return Array(date.utf8) + [0]
        }
        let ifd0At = 8, modifyAt = ifd0At + 2 + 2 * 12 + 4, exifAt = modifyAt + 20
        let originalAt = exifAt + 2 + 2 * 12 + 4, createAt = originalAt + 20
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + EXIFBytes.le32(ifd0At)
        bytes += EXIFBytes.le16(2) + EXIFBytes.entry(0x0132, 2, 20, EXIFBytes.le32(modifyAt))
            + EXIFBytes.entry(0x8769, 4, 1, EXIFBytes.le32(exifAt)) + EXIFBytes.le32(0)
        bytes += text(modifyDate)
        bytes += EXIFBytes.le16(2) + EXIFBytes.entry(0x9003, 2, 20, EXIFBytes.le32(originalAt))
            + EXIFBytes.entry(0x9004, 2, 20, EXIFBytes.le32(createAt)) + EXIFBytes.le32(0)
        bytes += text(dateTimeOriginal) + text(createDate)
        return bytes
    }

    func testAnOriginalsFileTimeIsLastModifiedElseTheCaptureTimeAtItsOffsetElseNone() {
        let exif = CaptureDate(takenAt: "2021:05:06 07:08:09", source: .exif)
        XCTAssertEqual(CaptureDate.fileTime(lastModified: "Tue, 03 Mar 2015 10:00:00 GMT", dated: exif, offset: "+02:00"), 1_425_376_800)
        XCTAssertEqual(CaptureDate.fileTime(lastModified: nil, dated: exif, offset: nil), 1_620_284_889)
        XCTAssertEqual(CaptureDate.fileTime(lastModified: nil, dated: exif, offset: "+02:00"), 1_620_284_889 - 7200)
        XCTAssertEqual(CaptureDate.fileTime(lastModified: nil, dated: exif, offset: "-05:30"), 1_620_284_889 + 19_800)
        XCTAssertEqual(CaptureDate.fileTime(lastModified: nil, dated: exif, offset: "+99:00"), 1_620_284_889, "a nonsense offset is ignored")
        // An implausible Last-Modified (in the future) falls through to the capture time.
        XCTAssertEqual(CaptureDate.fileTime(lastModified: "Tue, 03 Mar 2099 10:00:00 GMT", dated: exif, offset: nil), 1_620_284_889)
        // No camera date: the file keeps its download time.
        XCTAssertNil(CaptureDate.fileTime(lastModified: nil, dated: CaptureDate(takenAt: "2026:12:02 10:00:00", source: .fetchTime), offset: nil))
        // Before 1970 is a negative time, kept as such.
        XCTAssertEqual(CaptureDate.fileTime(lastModified: nil, dated: CaptureDate(takenAt: "1965:01:01 00:00:00", source: .exif), offset: nil), -157_766_400)
    }
}
