import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// The transfer engine in process, writing into the in-memory store's sink, against the
/// loopback fixture server: it knows storage only as `UploadStaging`, hands over complete
/// bodies with their SHA-256, and leaves no staging file behind for any body it drops.
final class TransferEngineTests: XCTestCase {
    private func run(_ urls: [String], options: FetchOptions = FetchOptions(), staging: UploadStaging) throws -> [String: CompletedTransfer] {
        let engine = try TransferEngine(options: options, staging: staging)
        var pending = urls
        var done: [String: CompletedTransfer] = [:]
        engine.run(next: {
            guard !pending.isEmpty else { return .end }
            let url = pending.removeFirst()
            return .request(TransferRequest(item: FetchItem(url: url, origin: "test")))
        }, completion: { done[$0.request.item.url] = $0 })
        return done
    }

    func testACompleteBodyIsHandedOverInItsSinkWithItsHash() throws {
        let server = try startFixtureServer()
        let store = try InMemoryOriginalStore()
        let url = server.url("/photo/engine?seed=engine")
        let done = try run([url], staging: store)
        guard case .received(let file, let sha256, let bytes, let prefix)? = done[url]?.body else {
            return XCTFail("not received: \(String(describing: done[url]?.body))")
        }
        let expected = try server.get("/photo/engine?seed=engine")
        let written = try Data(contentsOf: URL(fileURLWithPath: file.path))
        XCTAssertEqual(written, expected)
        XCTAssertEqual(bytes, Int64(expected.count))
        XCTAssertEqual(prefix, Array(expected.prefix(prefix.count)))
        let hasher = SHA256Hasher()
        hasher.update(expected)
        XCTAssertEqual(sha256, hasher.finalizeHex())
        XCTAssertEqual(store.openStagingFiles, 1, "the body's sink is handed over, not dropped")
        store.discard(file)
    }

    func testBodiesThatAreNotKeptLeaveNoSinkBehind() throws {
        let server = try startFixtureServer()
        let store = try InMemoryOriginalStore()
        var options = FetchOptions()
        options.retries = 1
        options.maxSize = 1 << 20
        let cut = server.url("/truncate-always/t"), missing = server.url("/status/404"), big = server.url("/big/b?size=3000000&cl=0")
        let done = try run([cut, missing, big], options: options, staging: store)
        guard case .failed? = done[cut]?.body else { return XCTFail("a cut body: \(String(describing: done[cut]?.body))") }
        guard case .failed? = done[missing]?.body else { return XCTFail("a 404: \(String(describing: done[missing]?.body))") }
        guard case .refused? = done[big]?.body else { return XCTFail("over --max-size: \(String(describing: done[big]?.body))") }
        XCTAssertEqual(store.openStagingFiles, 0, "every dropped body's sink was discarded")
        XCTAssertEqual(store.paths, [], "the engine never publishes")
    }
}
