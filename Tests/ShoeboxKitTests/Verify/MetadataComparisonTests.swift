import XCTest
@testable import ShoeboxKit

final class MetadataComparisonTests: XCTestCase {
    private func record(takenAt: String? = "2024:05:01 12:00:00", make: String? = "Canon", latitude: Double? = 48.8, altitude: Double? = 35) -> OriginalRecord {
        OriginalRecord(
            sha256: "x", path: "originals/x.jpg", bytes: 1, contentType: "image/jpeg", takenAt: takenAt, make: make,
            model: "EOS", gpsLatitude: latitude, gpsLongitude: latitude.map { _ in 2.29 }, gpsAltitude: altitude, addedAt: "t")
    }

    private func metadata(date: String? = "2024:05:01 12:00:00", make: String? = "Canon", latitude: Double? = 48.8, altitude: Double? = 35) -> PhotoMetadata {
        var metadata = PhotoMetadata()
        metadata.dateTimeOriginal = date
        metadata.make = make
        metadata.model = "EOS"
        metadata.gps = latitude.map { GPSPosition(latitude: $0, longitude: 2.29, altitude: altitude) }
        return metadata
    }

    func testEqualSummariesHaveNoDifferences() {
        XCTAssertEqual(MetadataComparison.differences(recorded: record(), read: metadata()), [])
        XCTAssertEqual(MetadataComparison.differences(recorded: record(make: "Canon"), read: metadata(make: " Canon ")), [])
    }

    func testEachChangedFieldIsNamed() {
        let differences = MetadataComparison.differences(
            recorded: record(), read: metadata(date: "2023:01:01 00:00:00", make: "Nikon", latitude: 10))
        XCTAssertEqual(differences.count, 3, "\(differences)")
        XCTAssertTrue(differences[0].hasPrefix("capture time '2023:01:01 00:00:00' but recorded '2024:05:01 12:00:00'"))
        XCTAssertTrue(differences[1].hasPrefix("make 'Nikon' but recorded 'Canon'"))
        XCTAssertTrue(differences[2].hasPrefix("GPS 10.0000000,2.2900000"))
    }

    func testALensChangedIsADifferenceAndALensNotKnownIsNot() {
        var recorded = record()
        var read = metadata()
        read.lensModel = "EF50mm f/1.8 STM "
        recorded.lens = nil
        XCTAssertEqual(MetadataComparison.differences(recorded: recorded, read: read), [], "catalogued before lenses were: not compared")
        recorded.lens = "EF50mm f/1.8 STM"
        XCTAssertEqual(MetadataComparison.differences(recorded: recorded, read: read), [], "trimmed as recorded")
        recorded.lens = ""
        XCTAssertEqual(MetadataComparison.differences(recorded: recorded, read: read), ["lens 'EF50mm f/1.8 STM' but recorded none"])
        recorded.lens = "EF85mm f/1.8 USM"
        read.lensModel = nil
        XCTAssertEqual(MetadataComparison.differences(recorded: recorded, read: read), ["lens none but recorded 'EF85mm f/1.8 USM'"])
    }

    func testACaptureTimeLostFromTheCatalogIsADifference() {
        // The file has DateTimeOriginal but no CreateDate: the missing one must not match a missing record.
        let differences = MetadataComparison.differences(recorded: record(takenAt: nil), read: metadata())
        XCTAssertEqual(differences, ["capture time '2024:05:01 12:00:00' but recorded none"])
    }

    func testGPSAddedOrRemovedOrMovedIsADifference() {
        XCTAssertEqual(MetadataComparison.differences(recorded: record(latitude: nil), read: metadata()).count, 1)
        XCTAssertEqual(MetadataComparison.differences(recorded: record(), read: metadata(latitude: nil)).count, 1)
        XCTAssertEqual(MetadataComparison.differences(recorded: record(), read: metadata(altitude: nil)).count, 1)
        XCTAssertEqual(MetadataComparison.differences(recorded: record(), read: metadata(latitude: 48.800_000_01)).count, 0)
    }

    func testFallbackDatesAreNotCompared() {
        // No EXIF date, or an unset camera clock: fetch dated the file by Last-Modified or download time.
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2026:11:30 01:00:00"), read: metadata(date: nil)), [])
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2026:11:30 01:00:00"), read: metadata(date: "0000:00:00 00:00:00")), [])
    }

    func testCaptureDateSkipsAnUnsetClockLikeFetch() {
        var metadata = metadata(date: "0000:00:00 00:00:00")
        metadata.createDate = "2022:02:02 02:02:02"
        XCTAssertEqual(CaptureDate.exif(metadata), "2022:02:02 02:02:02")
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2022:02:02 02:02:02"), read: metadata), [])
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2026:01:01 00:00:00"), read: metadata).count, 1)
    }

    func testDatesAreComparedInEXIFsFormAndOldRecordsOfImpossibleDatesStillMatch() {
        var iso = metadata(date: "2021-05-06T07:08:09")
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2021:05:06 07:08:09"), read: iso), [])
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2021-05-06T07:08:09"), read: iso), [], "recorded as written")
        // Before dates were checked against the calendar, fetch recorded 2021:02:30 as it was.
        iso = metadata(date: "2021:02:30 10:00:00")
        iso.createDate = "2021:03:01 10:00:00"
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2021:02:30 10:00:00"), read: iso), [])
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2021:03:01 10:00:00"), read: iso), [])
        XCTAssertEqual(MetadataComparison.differences(recorded: record(takenAt: "2020:01:01 00:00:00"), read: iso).count, 1)
    }
}
