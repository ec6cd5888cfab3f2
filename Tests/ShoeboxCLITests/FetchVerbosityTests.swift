import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxCLI
import ShoeboxKit

/// `fetch --quiet`, `--verbose` and what `--wait` says while it waits.
final class FetchVerbosityTests: XCTestCase {
    func testVerbosePrintsEveryRequestWithRedirectHopsAndRetries() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let redirect = server.url("/redirect/2")
        let flaky = server.url("/flaky/v1?status=503&times=1&retry_after=0")
        let secret = server.url("/auth/v2?user=ann&password=hunter2").replacingOccurrences(of: "://", with: "://ann:hunter2@")
        let output = try runner.fetch([redirect, flaky, secret], ["--verbose", "--max-retry-wait", "0"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.records.count, 3, "stdout keeps its JSON lines: \(output.stdout)")
        let lines = output.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("GET ") }
        func line(_ prefix: String) -> String? { lines.first { $0.hasPrefix(prefix) } }
        XCTAssertNotNil(line("GET \(redirect) 302 "), output.stderr)
        XCTAssertNotNil(line("GET \(server.url("/redirect/1")) 302 "), "each hop is a line: \(output.stderr)")
        XCTAssertNotNil(line("GET \(server.url("/photo/redirected?seed=redirect")) 200 "), output.stderr)
        XCTAssertNotNil(line("GET \(flaky) 503 "), output.stderr)
        let retried = try XCTUnwrap(line("GET \(flaky) 200 "), output.stderr)
        XCTAssertTrue(retried.hasSuffix(" attempt 2"), retried)
        XCTAssertTrue(retried.range(of: #" 200 [0-9.]+ (B|KiB) [0-9]+ ms attempt 2$"#, options: .regularExpression) != nil, retried)
        XCTAssertEqual(lines.count, 6, output.stderr)
        XCTAssertFalse(output.stderr.contains("ann:hunter2@"), "no password of the URL on stderr: \(output.stderr)")
        XCTAssertNotNil(line("GET " + server.url("/auth/v2?user=ann&password=hunter2").replacingOccurrences(of: "://", with: "://ann@")),
                        output.stderr)
        XCTAssertTrue(output.stderr.contains("3 URLs: 3 stored"), "the summary is still printed: \(output.stderr)")
    }

    func testARequestLineSaysWhyARequestEnded() {
        XCTAssertEqual(FetchReporter.requestLine(RequestRecord(url: "http://h/a", status: 0, bytes: 0, milliseconds: 3, attempt: 1,
                                                               error: "Couldn't connect")), "GET http://h/a failed (Couldn't connect) 0 B 3 ms")
        XCTAssertEqual(FetchReporter.requestLine(RequestRecord(url: "http://h/a", status: 200, bytes: 65536, milliseconds: 9, attempt: 3,
                                                               error: "over --max-size")), "GET http://h/a 200 64.0 KiB 9 ms attempt 3 aborted (over --max-size)")
        XCTAssertEqual(FetchReporter.requestLine(RequestRecord(url: "http://h/\u{1B}[2J", status: 404, bytes: 10, milliseconds: 1, attempt: 1)),
                       "GET http://h/\\x1B[2J 404 10 B 1 ms", "control characters shown, not obeyed")
    }

    func testQuietPrintsOnlyFailuresAndKeepsTheJSON() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let good = try runner.fetch([server.url("/photo/q1?seed=q1")], ["--quiet"])
        XCTAssertEqual(good.status, 0)
        XCTAssertEqual(good.stderr, "", "nothing on stderr when all went well")
        XCTAssertEqual(good.records.first?["outcome"] as? String, "stored")

        let bad = try runner.fetch([server.url("/photo/q1?seed=q1"), server.url("/status/404"), "not a url"], ["-q"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.records.count, 3)
        XCTAssertTrue(bad.stderr.contains("failed \(server.url("/status/404"))"), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("failed: not an absolute URL"), bad.stderr)
        XCTAssertFalse(bad.stderr.contains("URLs:"), "no summary: \(bad.stderr)")
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 2, bad.stderr)
    }

    func testQuietAndVerboseTogetherAreAUsageError() throws {
        let runner = try FetchRunner(self)
        let result = try runner.run(["--url", "http://127.0.0.1:9/a.jpg", "--quiet", "--verbose"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--quiet and --verbose"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: runner.library.path), "nothing was started")
    }

    /// Another process holds the writer lock: `fetch --wait` says once on stderr for whom it
    /// waits (pid and command line, from /proc), then goes on when the lock is released.
    func testWaitSaysWhoHoldsTheLibrary() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        try runner.fetch([server.url("/photo/w0?seed=w0")])
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import fcntl, sys
            f = open(sys.argv[1], "r+")
            fcntl.flock(f, fcntl.LOCK_EX)
            print("locked", flush=True)
            sys.stdin.read()
            """, runner.library.appendingPathComponent(".lock").path]
        let holderIn = Pipe(), holderOut = Pipe()
        holder.standardInput = holderIn
        holder.standardOutput = holderOut
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        var ready = ""
        while !ready.contains("\n") {
            let data = ShoeboxProcess.readSome(holderOut.fileHandleForReading)
            if data.isEmpty { break }
            ready += String(decoding: data, as: UTF8.self)
        }
        XCTAssertEqual(ready, "locked\n", "the holder has the lock")

        let (process, out, err) = try ShoeboxProcess.start(
            ["fetch", "--wait", "--library", runner.library.path, "--url", server.url("/photo/w1?seed=w1")])
        var said = ""
        while !said.contains("\n") {
            let data = ShoeboxProcess.readSome(err.fileHandleForReading)
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        XCTAssertTrue(said.hasPrefix("shoebox: waiting for \(runner.library.path): pid \(holder.processIdentifier) (python3 -c "), said)
        XCTAssertTrue(said.contains("is writing to it (Ctrl-C to stop waiting)"), said)
        try holderIn.fileHandleForWriting.close()
        holder.waitUntilExit()
        let rest = ShoeboxProcess.waitCapturing(process, out: out, err: err)
        XCTAssertEqual(rest.status, 0, rest.stderr)
        XCTAssertTrue(rest.stderr.contains("1 URL: 1 stored"), rest.stderr)
        XCTAssertFalse(rest.stderr.contains("waiting for"), "said once: \(rest.stderr)")
    }
}
