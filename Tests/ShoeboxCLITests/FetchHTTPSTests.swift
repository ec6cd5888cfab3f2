import Foundation
import XCTest

/// HTTPS with HTTP/2 (nginx on 127.0.0.1), certificate verification, --cacert.
final class FetchHTTPSTests: XCTestCase {
    private let photos = ["garden.jpg", "oslo-fjord.jpg", "scanned-print.jpg", "sydney-harbour.jpg"]

    private func serveSamples(_ runner: FetchRunner) throws -> TLSServer {
        let samples = ManualTool.checkout.appendingPathComponent("samples/photos")
        let root = runner.workDirectory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for name in photos {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        return try TLSServer(root: root.path, in: runner.workDirectory)
    }

    func testHTTPSIsFetchedOverHTTP2MultiplexedOnOneConnection() throws {
        let runner = try FetchRunner(self)
        let server = try serveSamples(runner)
        defer { server.stop() }
        let urls = photos.map(server.url)

        let result = try runner.fetch(urls, ["--cacert", server.certificate, "--jobs", "4", "--per-host", "4"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for url in urls { XCTAssertEqual(result.outcome(url), "stored", url) }
        try runner.assertConsistent()

        server.stop()
        let requests = try server.requests()
        XCTAssertEqual(requests.count, photos.count, "\(requests)")
        XCTAssertTrue(requests.allSatisfy { $0.first == "HTTP/2.0" }, "every request over HTTP/2: \(requests)")
        XCTAssertEqual(Set(requests.map { $0[1] }).count, 1, "all multiplexed on one connection: \(requests)")
    }

    func testAnUntrustedCertificateFailsEachURLAndStoresNothing() throws {
        let runner = try FetchRunner(self)
        let server = try serveSamples(runner)
        defer { server.stop() }
        let url = server.url(photos[0])

        let result = try runner.fetch([url], ["--retries", "0"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.outcome(url), "failed")
        let reason = result.record(url)?["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("certificate"), reason)
        let originals = runner.library.appendingPathComponent("originals").path
        XCTAssertEqual((FileManager.default.enumerator(atPath: originals)?.allObjects ?? []).count, 0)
    }

    func testAnUnreadableCAFileIsAUsageErrorNamingIt() throws {
        let runner = try FetchRunner(self)
        let missing = runner.workDirectory.appendingPathComponent("no-such-ca.pem").path
        let result = try runner.fetch(["https://127.0.0.1:9/x.jpg"], ["--cacert", missing])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains(missing), result.stderr)
        XCTAssertTrue(result.records.isEmpty)
    }
}
