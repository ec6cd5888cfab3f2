import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

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
    func setAside(path: String, to aside: String) throws { try base.setAside(path: path, to: aside) }
    var existenceIsCheap: Bool { base.existenceIsCheap }
    var publishConcurrency: Int { base.publishConcurrency }
    func location(of path: String) -> String { base.location(of: path) }
    var displayName: String { base.displayName }
}

/// Two archivers sharing a catalog, interleaved: a failed commit never removes an object another
/// writer catalogued meanwhile (found by review).
final class SharedArchiverTests: XCTestCase {
    private func jpeg(seed: String) -> Data { ArchiverInput.jpeg(seed: seed) }

    private func received(_ data: Data, url: String, into store: OriginalStore) throws -> CompletedTransfer {
        try ArchiverInput.received(data, url: url, into: store)
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
        XCTAssertEqual(originals.contents(of: path), photo, "A's failure path must not remove B's committed original")
    }
}
