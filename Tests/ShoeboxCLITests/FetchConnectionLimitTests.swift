import Foundation
import ShoeboxTestSupport
import XCTest

/// What --per-host and --connect-timeout do, seen from the server's side.
final class FetchConnectionLimitTests: XCTestCase {
    func testPerHostBoundsTheRequestsInFlightToOneHost() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let urls = (0..<6).map { server.url("/slow/ph\($0)?delay=0.4&seed=ph\($0)") }
        let output = try runner.fetch(urls, ["--jobs", "6", "--per-host", "2"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(urls.compactMap(output.outcome), Array(repeating: "stored", count: 6), output.stderr)
        let seen = try server.concurrency()
        XCTAssertEqual(seen.max, 2, "--per-host 2 with --jobs 6: two requests at once, never more")
        XCTAssertEqual(seen.now, 0)
        try runner.assertConsistent()
    }

    /// A socket that listens with a full backlog and never accepts: the kernel drops further
    /// SYNs, so a connect to it neither succeeds nor is refused (an unanswering host, on loopback).
    private final class SilentListener {
        let port: Int
        private var descriptors: [Int32] = []

        init() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0
                }
            }
            descriptors.append(listener)
            guard bound else { throw NSError(domain: "SilentListener", code: 1, userInfo: [NSLocalizedDescriptionKey: "bind/listen on 127.0.0.1 failed: errno \(errno)"]) }
            port = Int(UInt16(bigEndian: address.sin_port))
            // Fill the accept queue (backlog 0 holds one) and a little more.
            for _ in 0..<3 {
                let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                descriptors.append(client)
            }
        }

        deinit { descriptors.forEach { close($0) } }
    }

    func testConnectTimeoutGivesUpOnAHostThatNeverAnswersInAboutTheTimeGiven() throws {
        let listener = try SilentListener()
        let runner = try FetchRunner(self)
        let url = "http://127.0.0.1:\(listener.port)/never.jpg"
        let started = Date()
        let output = try runner.fetch([url], ["--connect-timeout", "1", "--retries", "0"])
        let elapsed = Date().timeIntervalSince(started)
        withExtendedLifetime(listener) {}
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(url), "failed", output.stderr)
        let reason = output.record(url)?["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("timed out") && reason.lowercased().contains("connect"), reason)
        // Generous bounds: not at once (it was no refusal), and nowhere near the 10 s default.
        XCTAssertGreaterThanOrEqual(elapsed, 0.9, reason)
        XCTAssertLessThan(elapsed, 8, reason)
    }
}
