import XCTest
@testable import ShoeboxKit

/// Content left staged by a crash is published only when it is whole.
final class LibraryRecoveryTests: XCTestCase {
    func testStagedContentIsPublishedOnlyWhenItHashesToItsName() throws {
        let root = try makeTemporaryDirectory(self).path
        let layout = LibraryLayout(root: root + "/library")
        let store = try LocalOriginalStore(layout: layout)
        let catalog = try SQLiteCatalog(path: layout.catalog)
        let whole = Data("the whole photo".utf8), other = Data("another photo".utf8)
        let hash = { (data: Data) -> String in
            let hasher = SHA256Hasher()
            hasher.update(data)
            return hasher.finalizeHex()
        }
        let wholeHash = hash(whole), otherHash = hash(other)
        for (sha256, name) in [(wholeHash, "whole"), (otherHash, "emptied")] {
            try catalog.insertOriginal(OriginalRecord(
                sha256: sha256, path: "originals/2024/05/01/\(name).jpg", bytes: 15, contentType: "image/jpeg",
                width: nil, height: nil, takenAt: nil, datedBy: nil, make: nil, model: nil,
                gpsLatitude: nil, gpsLongitude: nil, gpsAltitude: nil, orientation: nil, addedAt: "2026-11-30T01:00:00Z"))
        }
        // Both rows exist and both files are missing (a restore in progress); after a power
        // loss one staged file kept its name but lost its bytes.
        try whole.write(to: URL(fileURLWithPath: layout.staging + "/\(wholeHash).staged"))
        try Data().write(to: URL(fileURLWithPath: layout.staging + "/\(otherHash).staged"))

        let report = try LibraryRecovery.run(store: store, catalog: catalog)
        XCTAssertEqual(report.published, 1)
        XCTAssertEqual(report.dropped, 1)
        XCTAssertEqual(FileManager.default.contents(atPath: layout.absolute("originals/2024/05/01/whole.jpg")), whole)
        XCTAssertFalse(FileManager.default.fileExists(atPath: layout.absolute("originals/2024/05/01/emptied.jpg")),
                       "an empty file never passes for an original")
        XCTAssertEqual(try store.pendingStaged(), [])
    }

    /// Other bytes where a recorded original goes (another file, another tool's object): its
    /// staged content may be the only copy of the original, so it is kept, never dropped.
    func testStagedContentIsKeptWhenOtherBytesAreAtItsPath() throws {
        let root = try makeTemporaryDirectory(self).path
        let layout = LibraryLayout(root: root + "/library")
        let store = try LocalOriginalStore(layout: layout)
        let catalog = try SQLiteCatalog(path: layout.catalog)
        let photo = Data("the archived photo".utf8)
        let hasher = SHA256Hasher()
        hasher.update(photo)
        let sha256 = hasher.finalizeHex()
        let path = "originals/2024/05/01/taken.jpg"
        try catalog.insertOriginal(OriginalRecord(
            sha256: sha256, path: path, bytes: Int64(photo.count), contentType: "image/jpeg",
            width: nil, height: nil, takenAt: nil, datedBy: nil, make: nil, model: nil,
            gpsLatitude: nil, gpsLongitude: nil, gpsAltitude: nil, orientation: nil, addedAt: "2026-11-30T01:00:00Z"))
        try photo.write(to: URL(fileURLWithPath: layout.staging + "/\(sha256).staged"))
        try FileManager.default.createDirectory(atPath: layout.root + "/originals/2024/05/01", withIntermediateDirectories: true)
        try Data("somebody else's bytes".utf8).write(to: URL(fileURLWithPath: layout.absolute(path)))

        let report = try LibraryRecovery.run(store: store, catalog: catalog)
        XCTAssertEqual(report.blocked, [path])
        XCTAssertEqual(report.dropped, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: layout.staging + "/\(sha256).staged"), photo, "the only copy is kept")

        // The same bytes in place: the staged copy is the spare one, and goes.
        try FileManager.default.removeItem(atPath: layout.absolute(path))
        try photo.write(to: URL(fileURLWithPath: layout.absolute(path)))
        let again = try LibraryRecovery.run(store: store, catalog: catalog)
        XCTAssertEqual(again.blocked, [])
        XCTAssertEqual(again.dropped, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: layout.staging + "/\(sha256).staged"))
    }

    /// A staging file dropped twice (two error paths) closes its descriptor once: the second
    /// close must not hit a descriptor number another file got meanwhile.
    func testAStagingFileDroppedTwiceClosesItsDescriptorOnce() throws {
        let root = try makeTemporaryDirectory(self).path
        let staging = try LocalStagingArea(folder: root + "/tmp", library: root)
        let first = try staging.makeStagingFile()
        staging.discard(first)
        let second = try staging.makeStagingFile()
        XCTAssertEqual(second.descriptor, first.descriptor, "the number is reused (the lowest free one)")
        staging.discard(first)
        XCTAssertNotEqual(fcntl(second.descriptor, F_GETFD), -1, "the other file's descriptor is still open")
        staging.discard(second)
    }

    /// A dead writer's reservations are abandoned after SHOEBOX_STALE_RESERVATION_SECONDS (600 by
    /// default), never fewer than twice the seconds a writer whose connection broke keeps trying
    /// (SHOEBOX_CATALOG_RETRY_SECONDS, 60 by default): it may still commit until then.
    func testTheStaleReservationAgeIsNeverBelowTwiceTheRetryBound() {
        XCTAssertEqual(LibraryRecovery.staleReservationAge(requested: nil, retryBound: 60), 600)
        XCTAssertEqual(LibraryRecovery.staleReservationAge(requested: 4, retryBound: 2), 4)
        XCTAssertEqual(LibraryRecovery.staleReservationAge(requested: 3.9, retryBound: 2), 4, "raised to the floor")
        XCTAssertEqual(LibraryRecovery.staleReservationAge(requested: 30, retryBound: 60), 120)
        XCTAssertEqual(LibraryRecovery.staleReservationAge(requested: nil, retryBound: 400), 800, "the default too")
        XCTAssertEqual(LibraryRecovery.staleReservationAge(requested: 0, retryBound: 0), 0)

        func configured(_ environment: [String: String]) -> (retry: Double, stale: Double) {
            let configuration = LibraryConfiguration(layout: LibraryLayout(root: "/nowhere"), environment: environment)
            return (configuration.catalogRetryBound, configuration.staleReservationAge)
        }
        XCTAssertTrue(configured([:]) == (60, 600))
        XCTAssertTrue(configured(["SHOEBOX_CATALOG_RETRY_SECONDS": "2", "SHOEBOX_STALE_RESERVATION_SECONDS": "4"]) == (2, 4))
        XCTAssertTrue(configured(["SHOEBOX_CATALOG_RETRY_SECONDS": "2", "SHOEBOX_STALE_RESERVATION_SECONDS": "1"]) == (2, 4))
        XCTAssertTrue(configured(["SHOEBOX_STALE_RESERVATION_SECONDS": "4"]) == (60, 120), "the default retry bound holds the floor")
        XCTAssertTrue(configured(["SHOEBOX_CATALOG_RETRY_SECONDS": "0.5", "SHOEBOX_STALE_RESERVATION_SECONDS": "0"]) == (0.5, 1))
        // Values that are no number of seconds count as unset.
        for bad in ["", "soon", "-1", "nan", "inf"] {
            let values = configured(["SHOEBOX_CATALOG_RETRY_SECONDS": bad, "SHOEBOX_STALE_RESERVATION_SECONDS": bad])
            XCTAssertTrue(values == (60, 600), "\(bad): \(values)")
        }
    }
}
