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
}
