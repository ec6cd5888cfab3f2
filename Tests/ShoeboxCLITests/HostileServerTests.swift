import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// `shoebox fetch` against Fixtures/hostile_server.py: servers that frame bodies in
/// ways that would store half a photo as whole, leak credentials, or hold a transfer
/// for ever. Each case checks the outcome, the library byte for byte, and what the
/// server sent or received.
final class HostileServerTests: XCTestCase {
    var server: FixtureServer!
    var runner: FetchRunner!

    override func setUpWithError() throws {
        server = try startFixtureServer(script: "hostile_server")
        runner = try FetchRunner(self)
    }

    private func json<T: Decodable>(_ path: String, on host: FixtureServer? = nil, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: (host ?? server).get(path))
    }

    private func storedFiles() -> [String] {
        let originals = runner.library.appendingPathComponent("originals").path
        return (FileManager.default.enumerator(atPath: originals)?.allObjects as? [String] ?? [])
            .filter { !$0.isEmpty && (try? FileManager.default.attributesOfItem(atPath: originals + "/" + $0)[.type] as? FileAttributeType) == .typeRegular }
    }

    // MARK: Data stored wrong

    func testEveryGzipMemberIsDecodedWhereverTheReadsEnd() throws {
        let url = server.url("/gzip-boundary/members")
        let output = try runner.fetch([url])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(url), "stored", output.stdout)
        let path = try XCTUnwrap(output.record(url)?["path"] as? String)
        // What the server compressed: the photo whole, not its first member alone.
        let expected = try python("from hostile_server import big_photo; sys.stdout.buffer.write(big_photo('members', 60_000))")
        XCTAssertEqual(try runner.contents(of: path), expected)
        try runner.assertConsistent()
    }

    func testAContentLengthThatIsNotOneNumberIsRefused() throws {
        let garbage = server.url("/bad-length/garbage?value=12abc")
        let list = server.url("/bad-length/list?value=H,%20N&send=half")
        let same = server.url("/bad-length/same?value=N,%20N")
        let output = try runner.fetch([garbage, list, same], ["--retries", "0"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(garbage), "failed")
        XCTAssertTrue((output.record(garbage)?["reason"] as? String ?? "").contains("invalid Content-Length '12abc'"), output.stdout)
        XCTAssertEqual(output.outcome(list), "failed")
        XCTAssertTrue((output.record(list)?["reason"] as? String ?? "").contains("conflicting Content-Length"), output.stdout)
        // A list of one number repeated names one length (RFC 9110 8.6): the photo is whole.
        XCTAssertEqual(output.outcome(same), "stored", output.stdout)
        XCTAssertEqual(storedFiles().count, 1)
        try runner.assertConsistent()
    }

    func testATIFFCutWhereTheConnectionClosedIsNeverStored() throws {
        let cutStart = server.url("/tiff/cut-start?cut=1&ifd=start")
        let cutEnd = server.url("/tiff/cut-end?cut=1&ifd=end")
        let whole = server.url("/tiff/whole?ifd=end")
        let output = try runner.fetch([cutStart, cutEnd, whole], ["--retries", "1", "--max-retry-wait", "0"])
        XCTAssertEqual(output.status, 1, output.stderr)
        for cut in [cutStart, cutEnd] {
            XCTAssertEqual(output.outcome(cut), "failed", output.stdout)
            XCTAssertTrue((output.record(cut)?["reason"] as? String ?? "").contains("truncated body"), output.stdout)
            XCTAssertEqual(output.record(cut)?["attempts"] as? Int, 2, "a cut body is retried")
        }
        XCTAssertEqual(output.outcome(whole), "stored", output.stdout)
        let path = try XCTUnwrap(output.record(whole)?["path"] as? String)
        XCTAssertEqual(try runner.contents(of: path), try server.get("/tiff/whole?ifd=end"))
        XCTAssertEqual(storedFiles().count, 1)
        try runner.assertConsistent()
    }

    func testABodyWhoseEndCannotBeProvenIsStoredOnlyWhenAsked() throws {
        // JPEG XL's codestream has no end marker shoebox can follow.
        let jxl = server.url("/unframed/jxl")
        let output = try runner.fetch([jxl], ["--retries", "0"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(jxl), "failed", output.stdout)
        XCTAssertTrue((output.record(jxl)?["reason"] as? String ?? "").contains("end of body unproven"), output.stdout)
        XCTAssertEqual(storedFiles(), [])
        let allowed = try runner.fetch([jxl], ["--retries", "0", "--allow-unproven-end"])
        XCTAssertEqual(allowed.outcome(jxl), "stored", allowed.stdout)
        let warnings = allowed.record(jxl)?["warnings"] as? [String] ?? []
        XCTAssertTrue(warnings.contains { $0.hasPrefix("possibly-truncated:") }, "\(warnings)")
        try runner.assertConsistent()
    }

    // MARK: Secrets

    func testCredentialsNeverFollowARedirectToAnotherOrigin() throws {
        let other = try startFixtureServer(script: "hostile_server")
        let headers = ["-H", "Authorization: Bearer s3cret", "-H", "Cookie: session=s3cret", "-H", "X-Api-Key: s3cret",
                       "-H", "X-Plain: visible", "--secret-header", "x-api-key"]
        // A big page makes shoebox stop reading and follow the Location itself; a small one is followed after it.
        var urls: [String] = []
        for (key, page) in [("big", 2 << 20), ("small", 10)] {
            let target = other.url("/photo/\(key)-target")
            urls.append(server.url("/redirect/\(key)?page=\(page)&to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!))
        }
        let sameOrigin = server.url("/redirect/same?page=10&to=%2Fphoto%2Fsame-target")
        let output = try runner.fetch(urls + [sameOrigin], headers)
        XCTAssertEqual(output.status, 0, output.stderr)
        for key in ["big", "small"] {
            let seen = try json("/_headers/\(key)-target", on: other, as: [String: String].self)
            XCTAssertEqual(seen["X-Plain"], "visible", "\(key): other headers still go")
            for secret in ["Authorization", "Cookie", "X-Api-Key"] {
                XCTAssertNil(seen[secret], "\(key): \(secret) sent to another origin: \(seen)")
            }
            let asked = try json("/_headers/\(key)", as: [String: String].self)
            XCTAssertEqual(asked["Authorization"], "Bearer s3cret", "the listed URL's own origin gets them")
        }
        let same = try json("/_headers/same-target", as: [String: String].self)
        XCTAssertEqual(same["Authorization"], "Bearer s3cret", "a redirect within the origin keeps them")
        XCTAssertEqual(same["X-Api-Key"], "s3cret")
    }

    func testARedirectLoopOfLongPagesStopsAtTheHopBudget() throws {
        let url = server.url("/loop/big?page=\(2 << 20)")
        let small = server.url("/loop/small?page=10")
        let output = try runner.fetch([url, small], ["--retries", "0"])
        XCTAssertEqual(output.status, 1, output.stderr)
        for (key, listed) in [("big", url), ("small", small)] {
            XCTAssertEqual(output.outcome(listed), "failed")
            let reason = output.record(listed)?["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("too many redirects (more than 10)"), reason)
            XCTAssertTrue(reason.contains("11 requests made"), reason)
            XCTAssertEqual(try json("/_count/\(key)", as: Int.self), 11, "\(key): the listed request and 10 redirects")
        }
    }

    // MARK: Resources held

    func testATricklingServerIsAbortedBelowTheSpeedLimit() throws {
        let url = server.url("/trickle/slow?interval=0.5")
        let started = Date()
        let output = try runner.fetch([url], ["--retries", "0", "--speed-limit", "1000", "--speed-time", "2"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(url), "failed")
        XCTAssertTrue((output.record(url)?["reason"] as? String ?? "").contains("too slow"), output.stdout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "held for the server's whole minute")
        XCTAssertEqual(storedFiles(), [])
    }

    func testMaxTimeEndsARequestThatMovesButNeverFinishes() throws {
        let url = server.url("/steady/long?rate=20000&seconds=40")
        let output = try runner.fetch([url], ["--retries", "0", "--max-time", "2"])
        XCTAssertEqual(output.outcome(url), "failed")
        XCTAssertTrue((output.record(url)?["reason"] as? String ?? "").contains("timed out"), output.stdout)
        XCTAssertLessThan(try json("/_sent/long", as: Int.self), 400_000, "the body's 800 KB were not all waited for")
    }

    func testBytesAfterTheEndOfAGzipStreamEndTheTransferAtOnce() throws {
        let url = server.url("/gzip-tail/tail")
        let output = try runner.fetch([url])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(url), "stored", output.stdout)
        let path = try XCTUnwrap(output.record(url)?["path"] as? String)
        XCTAssertEqual(try runner.contents(of: path), try python("from fixture_server import jpeg_with_exif; sys.stdout.buffer.write(jpeg_with_exif('tail'))"))
        XCTAssertLessThan(try json("/_sent/tail", as: Int.self), 16 << 20, "the endless tail was read on")
        try runner.assertConsistent()
    }

    func testADeflateStreamOfEndlessEmptyBlocksStopsAtMaxSizeOnTheWire() throws {
        let url = server.url("/deflate-empty/empty")
        let output = try runner.fetch([url], ["--max-size", "1M"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(url), "rejected", output.stdout)
        XCTAssertTrue((output.record(url)?["reason"] as? String ?? "").contains("as sent"), output.stdout)
        XCTAssertLessThan(try json("/_sent/empty", as: Int.self), 16 << 20)
        XCTAssertEqual(storedFiles(), [])
    }

    func testCompressionBombsStopAtMaxSize() throws {
        let urls = ["gzip", "deflate", "br"].map { server.url("/bomb/\($0)?as=\($0)&mib=64") }
        let output = try runner.fetch(urls, ["--max-size", "5M"])
        XCTAssertEqual(output.status, 1, output.stderr)
        for url in urls {
            XCTAssertEqual(output.outcome(url), "rejected", output.stdout)
            XCTAssertTrue((output.record(url)?["reason"] as? String ?? "").contains("exceeds --max-size"), output.stdout)
        }
        XCTAssertEqual(storedFiles(), [])
        try runner.assertConsistent()
    }

    /// Runs Python with Fixtures/ on its path, returning what it writes.
    private func python(_ code: String) throws -> Data {
        let fixtures = try XCTUnwrap(FixtureServer.fixturesFolder)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sys; sys.path.insert(0, '\(fixtures)'); " + code]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = ShoeboxProcess.readAll(output.fileHandleForReading)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return data
    }
}
