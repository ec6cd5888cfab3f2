import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// Recovery with a catalog shared by several writers (a real PostgreSQL 15 on 127.0.0.1): a
/// writer killed between publishing a batch and committing it leaves objects at paths still
/// reserved for it; the next writer removes those, and never touches a live writer's
/// reservations or a catalogued original. Also the writers' own staging folders.
final class SharedCatalogRecoveryTests: XCTestCase {
    static let postgres = PostgresFixture()

    override class func setUp() {
        super.setUp()
        postgres.start()
    }

    override class func tearDown() {
        postgres.stop()
        super.tearDown()
    }

    private var uri = ""
    private var layout: LibraryLayout!

    override func setUpWithError() throws {
        uri = try Self.postgres.running().makeDatabase()
        layout = LibraryLayout(root: try makeTemporaryDirectory(self).path + "/library")
    }

    private func sha256(_ data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalizeHex()
    }

    /// Stages `data` in `store`, reserves `path` for it in `catalog` and publishes it there: a
    /// batch up to the moment before its commit.
    private func publishUncommitted(_ data: Data, at path: String, store: OriginalStore, catalog: Catalog) throws -> String {
        let sha = sha256(data)
        let file = try store.makeStagingFile()
        _ = data.withUnsafeBytes { write(file.descriptor, $0.baseAddress, $0.count) }
        try store.stage(file, sha256: sha)
        try store.syncStaged()
        XCTAssertTrue(try catalog.reservePath(path, for: sha))
        XCTAssertEqual(try store.publish(sha256: sha, to: path), .created)
        return sha
    }

    /// Runs recovery until `count` objects were removed (or, with `reservations`, until the
    /// stale reservations are gone), for at most 5 s: a closed connection's backend, and so
    /// its advisory lock, ends a moment after the client hangs up. The objects removed.
    private func recoverUntilDropped(_ count: Int, store: OriginalStore, catalog: PostgresCatalog, reservations: Bool = false) throws -> Int {
        var dropped = 0
        for _ in 0..<50 {
            let stale = try catalog.staleReservations(olderThan: 0).count
            dropped += try LibraryRecovery.run(store: store, sharedCatalog: catalog, staleAfter: 0).dropped
            if reservations ? stale > 0 : dropped >= count { break }
            usleep(100_000)
        }
        return dropped
    }

    /// Makes every reservation 100 s old, then waits (up to 10 s) until no advisory lock is
    /// held: the closed writers' backends, and so their locks, end a moment after they hang up.
    /// Call before a live writer takes its own.
    private func backdateReservationsOfGoneWriters(_ postgres: PostgresServer, database: String) throws {
        _ = try postgres.psql("UPDATE path_reservations SET reserved_at = now() - interval '100 seconds'", database: database)
        let deadline = Date().addingTimeInterval(10)
        while try postgres.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'", database: database) != "0",
              Date() < deadline {
            usleep(50_000)
        }
    }

    func testADeadWritersUncommittedObjectsAreRemovedAndLiveOnesAndCataloguedOnesKept() throws {
        let staging = try WriterStagingFolder(parent: layout.staging, library: layout.root)
        let store = try LocalOriginalStore(layout: layout, staging: staging.path)

        // Writer A: published, never committed, then killed (its connection ends).
        let deadWriter = try PostgresCatalog(uri: uri)
        let orphan = Data("published by a writer killed before its commit".utf8)
        _ = try publishUncommitted(orphan, at: "originals/2026/12/02/orphan.jpg", store: store, catalog: deadWriter)
        // Writer C: committed its row, then killed before releasing its reservation.
        let committedWriter = try PostgresCatalog(uri: uri)
        let kept = Data("published and committed".utf8)
        let keptSHA = try publishUncommitted(kept, at: "originals/2026/12/02/kept.jpg", store: store, catalog: committedWriter)
        try committedWriter.insertOriginal(OriginalRecord.minimal(keptSHA, "originals/2026/12/02/kept.jpg", bytes: kept.count))
        deadWriter.close()
        committedWriter.close()
        // Writer B: alive, between its publish and its commit.
        let liveWriter = try PostgresCatalog(uri: uri)
        defer { liveWriter.close() }
        let inFlight = Data("published by a live writer, commit coming".utf8)
        _ = try publishUncommitted(inFlight, at: "originals/2026/12/02/in-flight.jpg", store: store, catalog: liveWriter)

        let recovering = try PostgresCatalog(uri: uri)
        defer { recovering.close() }
        let dropped = try recoverUntilDropped(1, store: store, catalog: recovering)
        XCTAssertEqual(dropped, 1)
        XCTAssertFalse(try store.exists(path: "originals/2026/12/02/orphan.jpg"), "the dead writer's uncommitted object is removed")
        XCTAssertEqual(FileManager.default.contents(atPath: layout.absolute("originals/2026/12/02/kept.jpg")), kept,
                       "a catalogued original is never removed")
        XCTAssertEqual(FileManager.default.contents(atPath: layout.absolute("originals/2026/12/02/in-flight.jpg")), inFlight,
                       "a live writer's object is left alone")
        // The dead writers' reservations ended; the live one's holds.
        XCTAssertTrue(try recovering.reservePath("originals/2026/12/02/orphan.jpg", for: sha256(Data("new".utf8))))
        XCTAssertFalse(try recovering.reservePath("originals/2026/12/02/in-flight.jpg", for: sha256(Data("new".utf8))))
        XCTAssertEqual(try recovering.original(path: "originals/2026/12/02/kept.jpg")?.sha256, keptSHA)
    }

    func testAYoungReservationIsNotTakenForAbandonedEvenIfItsWriterIsGone() throws {
        let store = try LocalOriginalStore(layout: layout)
        let writer = try PostgresCatalog(uri: uri)
        let data = Data("reserved a moment ago".utf8)
        _ = try publishUncommitted(data, at: "originals/2026/12/02/young.jpg", store: store, catalog: writer)
        writer.close()
        let recovering = try PostgresCatalog(uri: uri)
        defer { recovering.close() }
        let report = try LibraryRecovery.run(store: store, sharedCatalog: recovering, staleAfter: 3600)
        XCTAssertEqual(report.dropped, 0)
        XCTAssertTrue(try store.exists(path: "originals/2026/12/02/young.jpg"))
    }

    func testAnotherWritersOtherBytesAtAStalePathAreNotRemoved() throws {
        let store = try LocalOriginalStore(layout: layout)
        let writer = try PostgresCatalog(uri: uri)
        let reserved = Data("the content the path was reserved for".utf8)
        XCTAssertTrue(try writer.reservePath("originals/2026/12/02/other.jpg", for: sha256(reserved)))
        writer.close()
        // Other bytes at the path (put there by hand): not the dead writer's object.
        try FileManager.default.createDirectory(atPath: layout.absolute("originals/2026/12/02"), withIntermediateDirectories: true)
        let other = Data("someone else's bytes".utf8)
        try other.write(to: URL(fileURLWithPath: layout.absolute("originals/2026/12/02/other.jpg")))
        let recovering = try PostgresCatalog(uri: uri)
        defer { recovering.close() }
        XCTAssertEqual(try recoverUntilDropped(1, store: store, catalog: recovering, reservations: true), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: layout.absolute("originals/2026/12/02/other.jpg")), other)
    }

    func testEachWriterStagesInItsOwnFolderAndAGoneWritersFolderIsSwept() throws {
        let first = try WriterStagingFolder(parent: layout.staging, library: layout.root)
        let second = try WriterStagingFolder(parent: layout.staging, library: layout.root)
        XCTAssertNotEqual(first.path, second.path)
        let storeA = try LocalOriginalStore(layout: layout, staging: first.path)
        let storeB = try LocalOriginalStore(layout: layout, staging: second.path)
        let partial = try storeA.makeStagingFile()
        XCTAssertEqual(try storeB.removePartialDownloads(), 0, "one writer's start-up never removes another's download in progress")
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial.path))
        close(partial.descriptor)

        // A writer killed: its folder stays, unlocked (simulated: a folder whose owner lock nobody holds).
        let dead = layout.staging + "/" + WriterStagingFolder.namePrefix + "gone-1-abc"
        try FileManager.default.createDirectory(atPath: dead, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: dead + "/owner", contents: Data())
        FileManager.default.createFile(atPath: dead + "/x.part", contents: Data("half".utf8))
        let third = try WriterStagingFolder(parent: layout.staging, library: layout.root)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dead), "a gone writer's folder is swept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: first.path), "a live writer's folder is not")
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial.path))
        withExtendedLifetime([first, second, third]) {}
    }

    /// verify on a shared catalog: an object at a path still reserved by a writer that is gone
    /// (reservation older than the stale age) is a notice that the next writer removes it; one
    /// of a live writer, between its publish and its commit, is that writer's work in progress.
    /// Neither is an unknown file, and neither fails the check.
    func testVerifyTellsADeadWritersUncommittedObjectFromALiveWritersWorkInProgress() throws {
        let postgres = try Self.postgres.running()
        let database = String(uri.split(separator: "/").last ?? "")
        let environment = ["SHOEBOX_STALE_RESERVATION_SECONDS": "50", "SHOEBOX_CATALOG_RETRY_SECONDS": "20"]
        let configuration = LibraryConfiguration(layout: layout, catalog: .postgres(uri: uri), environment: environment)
        _ = try Library.openForWriting(configuration, creating: true)
        let store = try LocalOriginalStore(layout: layout)
        let dead = try PostgresCatalog(uri: uri)
        _ = try publishUncommitted(Data("left by a killed writer".utf8), at: "originals/2026/12/02/left.jpg", store: store, catalog: dead)
        dead.close()
        try backdateReservationsOfGoneWriters(postgres, database: database)
        let live = try PostgresCatalog(uri: uri)
        defer { live.close() }
        _ = try publishUncommitted(Data("a live writer's, commit coming".utf8), at: "originals/2026/12/02/live.jpg", store: store, catalog: live)

        let report = try LibraryVerifier(configuration: configuration).run()
        let findings = report.findings.map { "\($0.kind.rawValue) \($0.path)" }
        XCTAssertEqual(findings, ["abandoned-publish originals/2026/12/02/left.jpg"], "\(report.findings)")
        XCTAssertEqual(report.findings.first?.severity, .notice)
        XCTAssertTrue(report.isClean, "a notice does not fail the check")
        XCTAssertEqual(report.addedSinceSnapshot, 1, "the live writer's object is its batch in flight")
        XCTAssertTrue(try store.exists(path: "originals/2026/12/02/left.jpg"), "verify removes nothing")
    }

    /// `Library.recover`, which fetch and reindex run when they start, takes its stale age from
    /// the configuration's environment (SHOEBOX_STALE_RESERVATION_SECONDS), never below twice
    /// SHOEBOX_CATALOG_RETRY_SECONDS. The reservation is backdated 100 s in the database.
    func testLibraryRecoveryTakesTheStaleAgeFromTheEnvironmentWithItsFloor() throws {
        let postgres = try Self.postgres.running()
        let database = String(uri.split(separator: "/").last ?? "")
        let path = "originals/2026/12/02/left.jpg"
        let store = try LocalOriginalStore(layout: layout)
        let writer = try PostgresCatalog(uri: uri)
        _ = try publishUncommitted(Data("published, never committed".utf8), at: path, store: store, catalog: writer)
        writer.close()
        // Gone for sure: what is kept below is kept for its age alone.
        try backdateReservationsOfGoneWriters(postgres, database: database)
        func recover(_ environment: [String: String]) throws -> Int {
            let configuration = LibraryConfiguration(layout: layout, catalog: .postgres(uri: uri), environment: environment)
            let library = try Library.openForWriting(configuration, creating: true)
            let catalog = try library.openCatalog()
            defer { catalog.close() }
            return try library.recover(catalog: catalog).dropped
        }
        XCTAssertEqual(try recover([:]), 0, "600 s by default")
        XCTAssertEqual(try recover(["SHOEBOX_STALE_RESERVATION_SECONDS": "50"]), 0, "raised to twice the default retry bound, 120 s")
        XCTAssertEqual(try recover(["SHOEBOX_STALE_RESERVATION_SECONDS": "50", "SHOEBOX_CATALOG_RETRY_SECONDS": "55"]), 0, "110 s")
        XCTAssertTrue(try store.exists(path: path))
        XCTAssertEqual(try recover(["SHOEBOX_STALE_RESERVATION_SECONDS": "50", "SHOEBOX_CATALOG_RETRY_SECONDS": "20"]), 1, "50 s")
        XCTAssertFalse(try store.exists(path: path))
    }
}
