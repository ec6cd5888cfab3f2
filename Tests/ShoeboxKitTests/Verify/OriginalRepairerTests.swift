import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// `verify --repair`'s rules on a real library folder and a real HTTP server: sources in
/// turn, newest first, asked for whole; file:// sources; the staged copy a crash left; and
/// put-back's crash safety (`OriginalPutBack`).
final class OriginalRepairerTests: XCTestCase {
    private var root: String!
    private var server: FixtureServer!

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "shoebox-repair-" + UUID().uuidString
        server = try startFixtureServer()
    }

    override func tearDownWithError() throws {
        server.stop()
        chmodTree(root)
        try? FileManager.default.removeItem(atPath: root)
    }

    private func chmodTree(_ folder: String) {
        for case let name as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] {
            chmod(folder + "/" + name, 0o755)
        }
    }

    private func hex(_ data: Data) -> String {
        let hasher = SHA256Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }

    private func repairer(_ library: VerifyTestLibrary) throws -> (OriginalRepairer, Library) {
        let opened = try Library.openForWriting(LibraryConfiguration(layout: library.layout), creating: false)
        return (OriginalRepairer(library: opened, catalog: try XCTUnwrap(library.catalog)), opened)
    }

    /// The fixture server's URL that sends exactly `data`.
    private func bytesURL(_ key: String, _ data: Data) -> String {
        server.url("/bytes/\(key)?b=" + data.base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }

    func testSourcesAreTriedNewestFirstAskedForWholeUntilOneGivesTheRecordedBytes() throws {
        let library = try VerifyTestLibrary(root: root)
        let data = VerifyTestLibrary.bytes(1)
        let good = bytesURL("good", data)
        let record = try library.store(data, path: "originals/2024/05/01/a.jpg", url: good)
        // A newer source of the same bytes that now fails, and one that now sends other bytes.
        let gone = server.url("/status/404")
        try library.recordSource(url: gone, sha256: record.sha256, outcome: .duplicate)
        chmod(library.layout.absolute(record.path), 0o644)
        try Data(repeating: 7, count: data.count).write(to: URL(fileURLWithPath: library.layout.absolute(record.path)))

        let (repairer, opened) = try repairer(library)
        let outcomes = try repairer.run([record])
        withExtendedLifetime(opened) {}
        guard case .repaired(let source, let aside)? = outcomes.first?.result else { return XCTFail("\(outcomes)") }
        XCTAssertEqual(source, good)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library.layout.absolute(record.path))), data)
        let kept = try XCTUnwrap(aside)
        XCTAssertTrue(kept.hasPrefix("damaged/") && kept.hasSuffix("/originals/2024/05/01/a.jpg"), kept)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library.layout.absolute(kept))), Data(repeating: 7, count: data.count))
        let order = try server.accessLog().map(\.path).filter { $0.hasPrefix("/status/404") || $0.hasPrefix("/bytes/good") }
        XCTAssertEqual(order.map { $0.hasPrefix("/status") }, [true, false], "the newest source first: \(order)")
        // The source's recorded ETag and Last-Modified are not sent: a 304 cannot prove bytes.
        let headers = try JSONSerialization.jsonObject(with: server.get("/_headers/good")) as? [String: String] ?? [:]
        XCTAssertNotNil(headers["Host"], "the request for the good source was seen: \(headers)")
        XCTAssertNil(headers.first { $0.key.lowercased() == "if-none-match" || $0.key.lowercased() == "if-modified-since" }, "\(headers)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: library.layout.staging), [], "nothing left staged")
    }

    func testASourceSendingOtherBytesRepairsNothingAndReplacesNothing() throws {
        let library = try VerifyTestLibrary(root: root)
        let data = VerifyTestLibrary.bytes(2)
        let record = try library.store(data, path: "originals/2024/05/01/b.jpg", url: bytesURL("other", VerifyTestLibrary.bytes(3)))
        let path = library.layout.absolute(record.path)
        chmod(path, 0o644)
        try Data(data.prefix(10)).write(to: URL(fileURLWithPath: path))

        let (repairer, opened) = try repairer(library)
        let outcome = try XCTUnwrap(try repairer.run([record]).first)
        withExtendedLifetime(opened) {}
        guard case .notRepaired(let attempts) = outcome.result else { return XCTFail("\(outcome)") }
        XCTAssertEqual(attempts.count, 1)
        XCTAssertTrue(attempts[0].reason.contains("other bytes"), attempts[0].reason)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), data.prefix(10), "damaged bytes stay until the right ones come")
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.layout.absolute(DamagedCopy.folder)))
        XCTAssertTrue(outcome.failureText?.contains("not repaired: " + attempts[0].source) == true)
    }

    func testAFileSourceRestoresAnImportedOriginalWhileItHoldsTheSameBytes() throws {
        let library = try VerifyTestLibrary(root: root)
        let data = VerifyTestLibrary.bytes(4)
        let card = root + "-card.jpg"
        defer { try? FileManager.default.removeItem(atPath: card) }
        try data.write(to: URL(fileURLWithPath: card))
        let record = try library.store(data, path: "originals/2024/05/01/c.jpg", url: server.url("/status/410"))
        try library.recordSource(url: URL(fileURLWithPath: card).absoluteString, sha256: record.sha256, outcome: .stored)
        try FileManager.default.removeItem(atPath: library.layout.absolute(record.path))

        let (repairer, opened) = try repairer(library)
        guard case .repaired(let source, nil)? = try repairer.run([record]).first?.result else { return XCTFail() }
        XCTAssertEqual(source, URL(fileURLWithPath: card).absoluteString)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library.layout.absolute(record.path))), data)
        XCTAssertEqual(try server.accessLog().filter { $0.path.hasPrefix("/status/410") }.count, 0, "a local file spares the download")

        // The card's file changed since: it is not these bytes any more; the URL fails too.
        try FileManager.default.removeItem(atPath: library.layout.absolute(record.path))
        try VerifyTestLibrary.bytes(5).write(to: URL(fileURLWithPath: card))
        let outcome = try XCTUnwrap(try repairer.run([record]).first)
        withExtendedLifetime(opened) {}
        guard case .notRepaired(let attempts) = outcome.result else { return XCTFail("\(outcome)") }
        XCTAssertEqual(attempts.map(\.source), [URL(fileURLWithPath: card).absoluteString, server.url("/status/410")])
        XCTAssertTrue(attempts[0].reason.contains("the file changed"), attempts[0].reason)
        XCTAssertTrue(attempts[1].reason.contains("410"), attempts[1].reason)
    }

    func testAnOriginalIntactWhenLookedAtAgainIsLeftAlone() throws {
        let library = try VerifyTestLibrary(root: root)
        let data = VerifyTestLibrary.bytes(6)
        let record = try library.store(data, path: "originals/2024/05/01/d.jpg", url: bytesURL("intact", data))
        var before = stat()
        stat(library.layout.absolute(record.path), &before)
        let (repairer, opened) = try repairer(library)
        XCTAssertEqual(try repairer.run([record]).first?.result, .alreadyIntact)
        withExtendedLifetime(opened) {}
        var after = stat()
        stat(library.layout.absolute(record.path), &after)
        XCTAssertEqual(after.st_ino, before.st_ino)
        XCTAssertEqual(try server.accessLog().filter { $0.path.hasPrefix("/bytes/intact") }.count, 0, "nothing is fetched for an intact original")
    }

    func testAPutBackInterruptedAfterTheDamagedFileWasSetAsideIsFinishedByRecovery() throws {
        let store = try InMemoryOriginalStore()
        let good = VerifyTestLibrary.bytes(7), damaged = VerifyTestLibrary.bytes(8)
        let sha = hex(good)
        let path = "originals/2024/05/01/e.jpg"
        func stage(_ data: Data) throws {
            let file = try store.makeStagingFile()
            _ = data.withUnsafeBytes { write(file.descriptor, $0.baseAddress!, $0.count) }
            try store.stage(file, sha256: hex(data))
        }
        try stage(damaged)
        try store.publish(sha256: hex(damaged), to: path)
        try stage(good)
        // The process dies between setting the damaged file aside and publishing (a publish that fails).
        store.failPublish = [path]
        XCTAssertThrowsError(try OriginalPutBack.run(store: store, sha256: sha, path: path, time: 1_700_000_000))
        XCTAssertFalse(try store.exists(path: path))
        let aside = "damaged/20231114T221320Z/" + path
        XCTAssertTrue(try OriginalPutBack.holds(store, path: aside, sha256: hex(damaged)), "kept, not deleted")
        // The next writer's recovery publishes the staged content its row is waiting for.
        store.failPublish = []
        let record = OriginalRecord(sha256: sha, path: path, bytes: Int64(good.count), contentType: "image/jpeg", takenAt: nil, addedAt: "2026-12-02T00:00:00Z")
        let report = try LibraryRecovery.run(store: store) { $0 == sha ? record : nil }
        XCTAssertEqual(report.published, 1)
        XCTAssertTrue(try OriginalPutBack.holds(store, path: path, sha256: sha))
        // Good bytes are never replaced: putting back over the right content changes nothing.
        try stage(good)
        XCTAssertEqual(try OriginalPutBack.run(store: store, sha256: sha, path: path), .alreadyPresent)
        XCTAssertEqual(try store.pendingStaged(), [])
    }
}
