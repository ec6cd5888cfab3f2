import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// Path reservations between writers sharing a catalog (a real PostgreSQL 15): another writer's
/// reservation is never this writer's, even for the same bytes, so recovery of a dead writer's
/// reservation can never remove an object a live writer relies on (found by review).
final class SharedPathReservationTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private func sha256(_ data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalizeHex()
    }

    private func stage(_ data: Data, in store: OriginalStore) throws -> String {
        let sha = sha256(data)
        let file = try store.makeStagingFile()
        _ = data.withUnsafeBytes { write(file.descriptor, $0.baseAddress, $0.count) }
        try store.stage(file, sha256: sha)
        try store.syncStaged()
        return sha
    }

    /// Finding 1. Writer A reserves P for content X, publishes, and is killed before its commit.
    /// Writer B (alive) downloads the same bytes under the same name: reservePath(P, X) says
    /// yes because P is reserved *for this content* — but the reservation row still names A.
    /// B publishes (.alreadyPresent: A's object is there). Recovery of a third writer sees A's
    /// reservation stale, no original at P yet, the object holding X: removes it. B commits.
    /// B's committed row has no object.
    func testRecoveryRemovesAnObjectALiveWriterReliesOnThroughADeadWritersReservation() throws {
        let uri = try Self.postgres.running().makeDatabase()
        let layout = LibraryLayout(root: try makeTemporaryDirectory(self).path + "/library")
        let stagingA = try WriterStagingFolder(parent: layout.staging, library: layout.root)
        let stagingB = try WriterStagingFolder(parent: layout.staging, library: layout.root)
        let storeA = try LocalOriginalStore(layout: layout, staging: stagingA.path)
        let storeB = try LocalOriginalStore(layout: layout, staging: stagingB.path)
        let path = "originals/2026/12/02/IMG_0001.jpg"
        let data = Data("the same photo, from two URLs with the same file name".utf8)

        let writerA = try PostgresCatalog(uri: uri)
        let sha = try stage(data, in: storeA)
        XCTAssertTrue(try writerA.reservePath(path, for: sha))
        XCTAssertEqual(try storeA.publish(sha256: sha, to: path), .created)
        writerA.close()  // kill -9 between publish and commit

        let writerB = try PostgresCatalog(uri: uri)
        defer { writerB.close() }
        _ = try stage(data, in: storeB)
        XCTAssertFalse(try writerB.reservePath(path, for: sha), "B never shares the dead writer's reservation")
        guard try writerB.reservePath(path, for: sha) else { return }  // B picks another name: nothing below can happen
        XCTAssertEqual(try storeB.publish(sha256: sha, to: path), .alreadyPresent)

        let recovering = try PostgresCatalog(uri: uri)
        defer { recovering.close() }
        for _ in 0..<50 {  // A's backend ends a moment after the hang-up
            if try LibraryRecovery.run(store: storeB, sharedCatalog: recovering, staleAfter: 0).dropped > 0 { break }
            if try recovering.staleReservations(olderThan: 0).isEmpty && !(try storeB.exists(path: path)) { break }
            usleep(100_000)
        }
        // B commits, as flushPublishingFirst does.
        XCTAssertTrue(try writerB.insertOriginalIfAbsent(OriginalRecord.minimal(sha, path, bytes: data.count)))
        XCTAssertTrue(try storeB.exists(path: path), "DATA LOSS: B's committed original \(path) has no file")
    }
}

extension SharedPathReservationTests {
    /// The fix: a path another writer reserved is not this writer's, even for the same bytes;
    /// the writer that reserved it may ask again (a lost answer retried).
    func testAnotherWritersReservationForTheSameContentIsNotOurs() throws {
        let uri = try Self.postgres.running().makeDatabase()
        let a = try PostgresCatalog(uri: uri)
        let b = try PostgresCatalog(uri: uri)
        defer { a.close(); b.close() }
        let sha = String(repeating: "c", count: 64)
        XCTAssertTrue(try a.reservePath("originals/2026/12/02/IMG_0001.jpg", for: sha))
        XCTAssertTrue(try a.reservePath("originals/2026/12/02/img_0001.JPG", for: sha), "the same writer, asking again")
        XCTAssertFalse(try b.reservePath("originals/2026/12/02/IMG_0001.jpg", for: sha), "another writer's, same bytes")
        try a.releaseReservations()
        XCTAssertTrue(try b.reservePath("originals/2026/12/02/IMG_0001.jpg", for: sha), "free once released")
    }
}

