import Foundation
import ShoeboxTestSupport
import XCTest

/// fetch's wget/curl-style transfer controls: --limit-rate, --wait-between, --cookies,
/// --cookie-jar, --netrc and --netrc-file, against the loopback fixture server.
final class TransferControlsTests: XCTestCase {
    private func monotonicNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    func testLimitRateHoldsATwoMegabyteBodyToAboutHalfAMegabyteASecond() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let url = server.url("/big/rate-1?size=2000000")
        let started = monotonicNow()
        let output = try runner.fetch([url], ["--limit-rate", "500K"])
        let elapsed = monotonicNow() - started
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(url), "stored", output.stdout)
        XCTAssertEqual(output.record(url)?["bytes"] as? Int, 2_000_000)
        // 2,000,000 bytes at 512,000 a second: about 3.9 s; generous lower bound.
        XCTAssertGreaterThanOrEqual(elapsed, 2.5, "--limit-rate 500K must slow a 2 MB body down")
    }

    func testABodyOverMaxSizeIsRejectedEvenWhenItsLastBytesArriveWhileUnpaused() throws {
        // Chunked, no length: only --max-size stops it, and under --limit-rate the refusing
        // bytes are handed over while libcurl unpauses the transfer, which does not fail it.
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let urls = (0..<3).map { server.url("/big/rate-over-\($0)?size=1500000&cl=0") }
        let output = try runner.fetch(urls, ["--limit-rate", "4M", "--max-size", "1M"])
        XCTAssertEqual(output.status, 1, output.stderr)
        for url in urls {
            XCTAssertEqual(output.outcome(url), "rejected", output.stdout)
        }
        let originals = runner.library.appendingPathComponent("originals").path
        XCTAssertEqual((FileManager.default.enumerator(atPath: originals)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jpg") }, [])
    }

    func testLimitRateRefusesAValueThatIsNoRate() throws {
        let runner = try FetchRunner(self)
        let output = try runner.run(["--url", "http://127.0.0.1:1/x.jpg", "--limit-rate", "fast"])
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("limit-rate"), output.stderr)
        XCTAssertTrue(output.stderr.contains("fast"), output.stderr)
    }

    func testWaitBetweenSpacesRequestsToOneHostButNotToAnother() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let keys = (1...4).map { "wait-\($0)" }
        let output = try runner.fetch(keys.map { server.url("/photo/\($0)?seed=\($0)") }, ["--wait-between", "0.5"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let starts = try keys.flatMap { try server.requestTimes($0) }.sorted()
        XCTAssertEqual(starts.count, 4)
        for (earlier, later) in zip(starts, starts.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, 0.45, "requests to one host at least --wait-between apart: \(starts)")
        }

        // Another host name (same server through --resolve) has its own turn.
        let other = "other-host.test"
        let mixed = [server.url("/photo/mix-a1?seed=a1"), "http://\(other):\(server.port)/photo/mix-b1?seed=b1",
                     server.url("/photo/mix-a2?seed=a2"), "http://\(other):\(server.port)/photo/mix-b2?seed=b2"]
        let second = try runner.fetch(mixed, ["--wait-between", "2", "--resolve", "\(other):\(server.port):127.0.0.1"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let a1 = try XCTUnwrap(server.requestTimes("mix-a1").first)
        let a2 = try XCTUnwrap(server.requestTimes("mix-a2").first)
        let b1 = try XCTUnwrap(server.requestTimes("mix-b1").first)
        let b2 = try XCTUnwrap(server.requestTimes("mix-b2").first)
        XCTAssertGreaterThanOrEqual(a2 - a1, 1.9)
        XCTAssertGreaterThanOrEqual(b2 - b1, 1.9)
        // Not serialised with each other: the other host's first request does not wait for a turn.
        XCTAssertLessThan(abs(b1 - a1), 1.5, "two hosts are not held back by each other's --wait-between")
    }

    func testCookiesFromTheFileAreSentAndCookiesServersSetEndInTheJar() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let cookies = runner.workDirectory.appendingPathComponent("cookies.txt")
        try "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tsecret-42\n"
            .write(to: cookies, atomically: true, encoding: .utf8)
        let jar = runner.workDirectory.appendingPathComponent("jar.txt")
        let needs = server.url("/need-cookie/c-1?name=session&seed=c1")
        let sets = server.url("/set-cookie/c-2?name=fresh&value=from-server&seed=c2")

        let without = try runner.fetch([needs])
        XCTAssertEqual(without.outcome(needs), "failed", "the route refuses a request without the cookie")

        let output = try runner.fetch([needs, sets], ["--cookies", cookies.path, "--cookie-jar", jar.path])
        XCTAssertEqual(output.status, 0, output.stderr + output.stdout)
        XCTAssertEqual(output.outcome(needs), "stored", output.stdout)
        XCTAssertFalse(output.stdout.contains("secret-42") || output.stderr.contains("secret-42"), "cookie values are never printed")
        let written = try String(contentsOf: jar, encoding: .utf8)
        XCTAssertTrue(written.contains("fresh\tfrom-server"), written)
        XCTAssertTrue(written.contains("session\tsecret-42"), written)
        let mode = try FileManager.default.attributesOfItem(atPath: jar.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the jar holds secrets: readable by its owner alone")
    }

    func testACookieAServerSetIsNotSentToAnotherHost() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let jar = runner.workDirectory.appendingPathComponent("jar.txt")
        let other = "cookie-other.test"
        let sets = server.url("/set-cookie/c-3?name=mine&value=only-here&seed=c3")
        let elsewhere = "http://\(other):\(server.port)/photo/c-4?seed=c4"
        let output = try runner.fetch([sets, elsewhere], ["--cookie-jar", jar.path, "--jobs", "1",
                                                         "--resolve", "\(other):\(server.port):127.0.0.1"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(try String(contentsOf: jar, encoding: .utf8).contains("only-here"), "the cookie was taken")
        let headers = try JSONSerialization.jsonObject(with: server.get("/_headers/c-4")) as? [String: String] ?? [:]
        XCTAssertNil(headers["Cookie"], "a cookie set by 127.0.0.1 went to \(other): \(headers)")
    }

    func testNetrcCredentialsGoToTheirHostAndNotAfterARedirectToAnotherPort() throws {
        let server = try startFixtureServer()
        let elsewhere = try startFixtureServer()
        let runner = try FetchRunner(self)
        let netrc = runner.workDirectory.appendingPathComponent("netrc")
        try "machine 127.0.0.1 login alice password s3cret\n".write(to: netrc, atomically: true, encoding: .utf8)
        let auth = server.url("/auth/n-1?user=alice&password=s3cret&seed=n1")

        let without = try runner.fetch([auth])
        XCTAssertEqual(without.outcome(auth), "failed", "no credentials, no photo")

        let output = try runner.fetch([auth], ["--netrc-file", netrc.path])
        XCTAssertEqual(output.status, 0, output.stderr + output.stdout)
        XCTAssertEqual(output.outcome(auth), "stored", output.stdout)

        let target = elsewhere.url("/auth/n-2?user=alice&password=s3cret&seed=n2")
        let redirect = server.url("/redirect-to/n-r?to=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        let redirected = try runner.fetch([redirect], ["--netrc-file", netrc.path])
        XCTAssertEqual(redirected.outcome(redirect), "failed", redirected.stdout)
        let headers = try JSONSerialization.jsonObject(with: elsewhere.get("/_headers/n-2")) as? [String: String] ?? [:]
        XCTAssertFalse(headers.isEmpty, "the redirect was followed")
        XCTAssertNil(headers["Authorization"], "netrc credentials went to another port: \(headers)")
    }

    /// verify --repair downloads with the request options given, as fetch does: a source that
    /// needs a password is mended only with --netrc-file, and --header goes with the request.
    func testVerifyRepairTakesFetchsRequestOptions() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let netrc = runner.workDirectory.appendingPathComponent("netrc")
        try "machine 127.0.0.1 login alice password s3cret\n".write(to: netrc, atomically: true, encoding: .utf8)
        let auth = server.url("/auth/r-1?user=alice&password=s3cret&seed=r1")
        let fetched = try runner.fetch([auth], ["--netrc-file", netrc.path])
        XCTAssertEqual(fetched.outcome(auth), "stored", fetched.stdout + fetched.stderr)
        let path = runner.library.appendingPathComponent(try XCTUnwrap(fetched.record(auth)?["path"] as? String)).path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: path)
        func verify(_ extra: [String]) throws -> ShoeboxProcess.Result {
            try ShoeboxProcess.run(["verify", "--library", runner.library.path, "--repair"] + extra)
        }
        let without = try verify([])
        XCTAssertEqual(without.status, 1, without.stderr)
        XCTAssertTrue(without.stdout.contains("401"), "the source refused: \(without.stdout)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        let with = try verify(["--netrc-file", netrc.path, "-H", "X-Trace: repair-1"])
        XCTAssertEqual(with.status, 0, with.stdout + with.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)
        let headers = try JSONSerialization.jsonObject(with: server.get("/_headers/r-1")) as? [String: String] ?? [:]
        XCTAssertEqual(headers["X-Trace"], "repair-1", "\(headers)")
        XCTAssertEqual(try verify(["--netrc-file", runner.workDirectory.appendingPathComponent("none").path]).status, 2,
                       "an unreadable netrc file is a usage error, as for fetch")
    }

    func testNetrcFileThatCannotBeReadIsAUsageError() throws {
        let runner = try FetchRunner(self)
        let missing = runner.workDirectory.appendingPathComponent("no-such-netrc").path
        let output = try runner.run(["--url", "http://127.0.0.1:1/x.jpg", "--netrc-file", missing])
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("netrc-file") && output.stderr.contains(missing), output.stderr)
    }
}
