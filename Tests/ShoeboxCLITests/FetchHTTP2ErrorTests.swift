import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// The fetch error paths over HTTP/2 (nginx on 127.0.0.1 in front of the fixture server): a
/// 503 retried, a body cut short retried or failed, a stall aborted, an oversize body refused,
/// redirects followed and their loops stopped; each checked in the outcome and in the library.
final class FetchHTTP2ErrorTests: XCTestCase {
    var fixture: FixtureServer!
    var tls: TLSServer!
    var runner: FetchRunner!

    override func setUpWithError() throws {
        fixture = try startFixtureServer()
        runner = try FetchRunner(self)
        let root = runner.workDirectory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        tls = try TLSServer(root: root.path, in: runner.workDirectory, proxyTo: fixture.port)
        let server = tls!
        addTeardownBlock { server.stop() }
    }

    private func url(_ path: String) -> String { tls.url(String(path.dropFirst())) }

    private func fetch(_ urls: [String], _ extra: [String]) throws -> FetchRunner.Output {
        try runner.fetch(urls, ["--cacert", tls.certificate] + extra)
    }

    private func storedCount() throws -> Int {
        try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true).countOriginals()
    }

    /// Every request of the run came over HTTP/2 (stop the server first: its log is then complete).
    private func assertAllHTTP2(file: StaticString = #filePath, line: UInt = #line) throws {
        tls.stop()
        let requests = try tls.requests()
        XCTAssertFalse(requests.isEmpty, file: file, line: line)
        XCTAssertTrue(requests.allSatisfy { $0.first == "HTTP/2.0" }, "\(requests)", file: file, line: line)
    }

    func testA503IsRetriedAndStoredOverHTTP2() throws {
        let flaky = url("/flaky/h2-503?status=503&times=1&retry_after=1&seed=h2-503")
        let output = try fetch([flaky], ["--retries", "2"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(flaky), "stored", output.stderr)
        XCTAssertEqual(output.record(flaky)?["attempts"] as? Int, 2)
        let path = try XCTUnwrap(output.record(flaky)?["path"] as? String)
        XCTAssertEqual(try runner.contents(of: path), try fixture.get("/photo/h2-503?seed=h2-503"))
        XCTAssertEqual(try fixture.requestTimes("flaky/h2-503").count, 2)
        try runner.assertConsistent()
        try assertAllHTTP2()
    }

    func testABodyCutShortIsRetriedOnceCutAndNeverStoredWhenAlwaysCut() throws {
        let once = url("/truncate-once/h2-once?seed=h2-once")
        let always = url("/truncate-always/h2-always?seed=h2-always")
        let output = try fetch([once, always], ["--retries", "1"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(once), "stored", output.stderr)
        XCTAssertEqual(output.record(once)?["attempts"] as? Int, 2)
        let path = try XCTUnwrap(output.record(once)?["path"] as? String)
        XCTAssertEqual(try runner.contents(of: path), try fixture.get("/photo/h2-once?seed=h2-once"), "stored whole")
        XCTAssertEqual(output.outcome(always), "failed", output.stderr)
        XCTAssertEqual(output.record(always)?["attempts"] as? Int, 2)
        XCTAssertEqual(try storedCount(), 1, "nothing cut was stored")
        try runner.assertConsistent()
        try assertAllHTTP2()
    }

    func testAStalledStreamIsAbortedAndNothingIsStored() throws {
        let stalled = url("/stall/h2-stall?for=20")
        let output = try fetch([stalled], ["--stall-timeout", "1", "--retries", "0"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(stalled), "failed", output.stderr)
        let reason = output.record(stalled)?["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("stall") || reason.contains("timed out"), reason)
        XCTAssertEqual(try storedCount(), 0)
        try runner.assertConsistent()
        try assertAllHTTP2()
    }

    func testAnOversizeBodyIsRefusedWithoutBeingReadWhole() throws {
        let declared = url("/big/h2-declared?size=8000000&cl=1")
        let undeclared = url("/big/h2-undeclared?size=8000000&cl=0")
        let output = try fetch([declared, undeclared], ["--max-size", "1M"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(declared), "rejected", output.stderr)
        XCTAssertTrue((output.record(declared)?["reason"] as? String ?? "").contains("exceeds --max-size"), output.stderr)
        XCTAssertEqual(output.outcome(undeclared), "rejected", output.stderr)
        XCTAssertTrue((output.record(undeclared)?["reason"] as? String ?? "").contains("exceeds --max-size"), output.stderr)
        XCTAssertEqual(output.record(undeclared)?["attempts"] as? Int, 1, "oversize is not retried")
        XCTAssertEqual(try storedCount(), 0)
        try runner.assertConsistent()
        try assertAllHTTP2()
    }

    func testRedirectsAreFollowedAndALoopIsStopped() throws {
        let chain = url("/redirect/3")
        let loop = url("/redirect-loop")
        let output = try fetch([chain, loop], [])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(chain), "stored", output.stderr)
        XCTAssertEqual(output.record(chain)?["final_url"] as? String, url("/photo/redirected?seed=redirect"))
        let path = try XCTUnwrap(output.record(chain)?["path"] as? String)
        XCTAssertEqual(try runner.contents(of: path), try fixture.get("/photo/redirected?seed=redirect"))
        XCTAssertEqual(output.outcome(loop), "failed", output.stderr)
        XCTAssertTrue((output.record(loop)?["reason"] as? String ?? "").contains("redirect"), output.stderr)
        XCTAssertEqual(try storedCount(), 1)
        try runner.assertConsistent()
        try assertAllHTTP2()
    }
}
