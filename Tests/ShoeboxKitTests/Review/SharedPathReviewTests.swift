import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// Review findings (REVIEW.md): each test states what the project promises and FAILS on main
/// at d92ee23, showing a catalogued original whose bytes are gone.
final class SharedPathReviewTests: XCTestCase {
    nonisolated(unsafe) static var server: PostgresServer?
    nonisolated(unsafe) static var startError: Error?

    override class func setUp() {
        super.setUp()
        do { server = try PostgresServer() } catch { startError = error }
    }

    override class func tearDown() {
        server?.stop()
        server = nil
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

    private func record(_ sha: String, _ path: String, bytes: Int) -> OriginalRecord {
        OriginalRecord(sha256: sha, path: path, bytes: Int64(bytes), contentType: "image/jpeg", width: nil, height: nil,
                       takenAt: nil, datedBy: nil, make: nil, model: nil, gpsLatitude: nil, gpsLongitude: nil,
                       gpsAltitude: nil, orientation: nil, addedAt: "2026-12-02T06:00:00Z")
    }

    /// Finding 1. Writer A reserves P for content X, publishes, and is killed before its commit.
    /// Writer B (alive) downloads the same bytes under the same name: reservePath(P, X) says
    /// yes because P is reserved *for this content* — but the reservation row still names A.
    /// B publishes (.alreadyPresent: A's object is there). Recovery of a third writer sees A's
    /// reservation stale, no original at P yet, the object holding X: removes it. B commits.
    /// B's committed row has no object.
    func testRecoveryRemovesAnObjectALiveWriterReliesOnThroughADeadWritersReservation() throws {
        if let error = Self.startError { throw error }
        let uri = try XCTUnwrap(Self.server).makeDatabase()
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
        guard try writerB.reservePath(path, for: sha) else {
            return  // fixed: B never shares A's reservation, so it picks another name
        }
        XCTAssertEqual(try storeB.publish(sha256: sha, to: path), .alreadyPresent)

        let recovering = try PostgresCatalog(uri: uri)
        defer { recovering.close() }
        for _ in 0..<50 {  // A's backend ends a moment after the hang-up
            if try LibraryRecovery.run(store: storeB, sharedCatalog: recovering, staleAfter: 0).dropped > 0 { break }
            if try recovering.staleReservations(olderThan: 0).isEmpty && !(try storeB.exists(path: path)) { break }
            usleep(100_000)
        }
        // B commits, as flushPublishingFirst does.
        XCTAssertTrue(try writerB.insertOriginalIfAbsent(record(sha, path, bytes: data.count)))
        XCTAssertTrue(try storeB.exists(path: path), "DATA LOSS: B's committed original \(path) has no file")
    }
}

extension SharedPathReviewTests {
    /// The fix: a path another writer reserved is not this writer's, even for the same bytes;
    /// the writer that reserved it may ask again (a lost answer retried).
    func testAnotherWritersReservationForTheSameContentIsNotOurs() throws {
        if let error = Self.startError { throw error }
        let uri = try XCTUnwrap(Self.server).makeDatabase()
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

/// Forwards to an InMemoryOriginalStore; runs `afterPublish` once after the next publish
/// (to interleave another writer between this writer's publish and its commit).
final class InterleavingStore: OriginalStore, @unchecked Sendable {
    let base: InMemoryOriginalStore
    var afterPublish: (() throws -> Void)?
    init(_ base: InMemoryOriginalStore) { self.base = base }
    func makeStagingFile() throws -> StagingFile { try base.makeStagingFile() }
    func discard(_ file: StagingFile) { base.discard(file) }
    func stage(_ file: StagingFile, sha256: String) throws { try base.stage(file, sha256: sha256) }
    func syncStaged() throws { try base.syncStaged() }
    func publish(sha256: String, to path: String) throws -> PublishOutcome {
        let outcome = try base.publish(sha256: sha256, to: path)
        if let hook = afterPublish { afterPublish = nil; try hook() }
        return outcome
    }
    func discardStaged(sha256: String) { base.discardStaged(sha256: sha256) }
    func pendingStaged() throws -> [String] { try base.pendingStaged() }
    func stagedContentMatches(sha256: String) -> Bool { base.stagedContentMatches(sha256: sha256) }
    func removePartialDownloads() throws -> Int { try base.removePartialDownloads() }
    func recordedSHA256(path: String) throws -> String? { try base.recordedSHA256(path: path) }
    func contentMatches(path: String, sha256: String) throws -> Bool { try base.contentMatches(path: path, sha256: sha256) }
    func exists(path: String) throws -> Bool { try base.exists(path: path) }
    func info(path: String) throws -> StoredOriginal? { try base.info(path: path) }
    func read(path: String, offset: Int64, count: Int) throws -> [UInt8] { try base.read(path: path, offset: offset, count: count) }
    func stream(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws { try base.stream(path: path, body) }
    func withLocalFile<T>(path: String, _ body: (String) throws -> T) throws -> T { try base.withLocalFile(path: path, body) }
    func list(under folder: String, _ each: (StoredOriginal) throws -> Void) throws { try base.list(under: folder, each) }
    func remove(path: String) throws { try base.remove(path: path) }
    var existenceIsCheap: Bool { base.existenceIsCheap }
    var publishConcurrency: Int { base.publishConcurrency }
    func location(of path: String) -> String { base.location(of: path) }
    var displayName: String { base.displayName }
}

final class SharedArchiverReviewTests: XCTestCase {
    private func jpeg(seed: String) -> Data {
        var tiff = TIFFBytes()
        tiff.ascii(0x010E, seed)
        tiff.ascii(0x0132, "2022:03:04 05:06:07")
        return Data(EXIFBytes.jpeg(tiff: tiff.data))
    }

    private func received(_ data: Data, url: String, into store: OriginalStore) throws -> CompletedTransfer {
        let file = try store.makeStagingFile()
        _ = data.withUnsafeBytes { write(file.descriptor, $0.baseAddress, $0.count) }
        let hasher = SHA256Hasher()
        hasher.update(data)
        return CompletedTransfer(
            request: TransferRequest(item: FetchItem(url: url, origin: "test")),
            body: .received(file, sha256: hasher.finalizeHex(), bytes: Int64(data.count), prefix: Array(data.prefix(64))),
            attempts: 1, httpStatus: 200, contentType: "image/jpeg", etag: nil, lastModified: nil, finalURL: url)
    }

    /// Finding 2. Two live writers, same bytes, same file name (a.jpg on two hosts): both reserve
    /// P (same content). A publishes (.created); B publishes (.alreadyPresent) and commits.
    /// A's commit then fails with an error that is not a lost connection (disk full on the
    /// server, a statement timeout…): A removes "what this batch put in place", P — the file of
    /// B's committed original.
    func testAFailedCommitRemovesTheObjectAnotherWriterCommitted() throws {
        let catalog = InMemoryCatalog()
        let originals = try InMemoryOriginalStore()
        let storeA = InterleavingStore(originals)
        let storeB = try InMemoryOriginalStore(sharingOriginalsWith: originals)
        var first: [FetchResult] = []
        var second: [FetchResult] = []
        let writerA = Archiver(store: storeA, catalog: catalog, journal: nil, publishFirst: true) { first.append($0) }
        let writerB = Archiver(store: storeB, catalog: catalog, journal: nil, publishFirst: true) { second.append($0) }
        let photo = jpeg(seed: "same")
        try writerA.accept(received(photo, url: "http://127.0.0.1:9/a.jpg", into: storeA))
        try writerB.accept(received(photo, url: "http://127.0.0.2:9/a.jpg", into: storeB))
        XCTAssertEqual(first.count + second.count, 0)
        storeA.afterPublish = {
            try writerB.flush()  // B publishes (.alreadyPresent) and commits meanwhile
            catalog.failNextCommit = InMemoryCatalog.Failure(description: "could not extend file: No space left on device")
        }
        XCTAssertThrowsError(try writerA.flush())
        XCTAssertEqual(second.map(\.outcome), [.stored])
        let path = try XCTUnwrap(second.first?.path)
        XCTAssertNotNil(try catalog.original(path: path), "B's row is committed")
        XCTAssertEqual(originals.contents(of: path), photo, "DATA LOSS: A's failure path removed B's committed original")
    }
}
