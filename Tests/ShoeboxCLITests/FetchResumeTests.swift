import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// A body cut short is resumed on the retry with Range + If-Range (like `wget -c`),
/// when the server announced Accept-Ranges and a validator; never spliced from two versions.
final class FetchResumeTests: XCTestCase {
    private let size = 2_000_000

    private struct Request: Decodable {
        var range: String?
        var if_range: String?
        var sent: Int
    }

    private func requests(_ server: FixtureServer, _ key: String) throws -> [Request] {
        try JSONDecoder().decode([Request].self, from: server.get("/_requests/" + key))
    }

    /// Fetches /resumable/KEY in `mode`; returns the output, the stored bytes (nil when not
    /// stored) and the reference body.
    private func fetch(_ key: String, mode: String) throws -> (FetchRunner.Output, Data?, Data, FixtureServer) {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let url = server.url("/resumable/\(key)?size=\(size)&mode=\(mode)")
        let output = try runner.fetch([url])
        let whole = try server.get("/resumable-whole/\(key)?size=\(size)")
        XCTAssertEqual(whole.count, size)
        let stored = try (output.record(url)?["path"] as? String).map { try runner.contents(of: $0) }
        return (output, stored, whole, server)
    }

    func testABodyCutAtHalfIsResumedWithRangeAndIfRangeAndStoredWhole() throws {
        let (output, stored, whole, server) = try fetch("resume-etag", mode: "ok")
        XCTAssertEqual(output.status, 0, output.stderr + output.stdout)
        XCTAssertEqual(stored, whole, "the stored bytes are the whole body")
        XCTAssertEqual(output.records.first?["sha256"] as? String, SHA256Hasher.hex(of: whole), "the hash covers the whole body")
        let seen = try requests(server, "resume-etag")
        XCTAssertEqual(seen.count, 2, "\(seen)")
        guard seen.count == 2 else { return }
        XCTAssertNil(seen[0].range)
        XCTAssertEqual(seen[1].range, "bytes=\(size / 2)-")
        XCTAssertEqual(seen[1].if_range, "\"resume-etag-1\"")
        XCTAssertLessThanOrEqual(seen[1].sent, size / 2 + 1, "only the rest was sent the second time")
        XCTAssertGreaterThan(seen[1].sent, 0)
    }

    func testWithoutAnETagIfRangeCarriesLastModified() throws {
        let (output, stored, whole, server) = try fetch("resume-lm", mode: "lm")
        XCTAssertEqual(output.status, 0, output.stderr + output.stdout)
        XCTAssertEqual(stored, whole)
        let seen = try requests(server, "resume-lm")
        XCTAssertEqual(seen.last?.range, "bytes=\(size / 2)-")
        XCTAssertEqual(seen.last?.if_range, "Tue, 01 Dec 2026 10:00:00 GMT")
    }

    func testAServerThatIgnoresTheRangeGivesTheWholeBodyWhichIsStoredAlone() throws {
        let (output, stored, whole, server) = try fetch("resume-ignored", mode: "ignore")
        XCTAssertEqual(output.status, 0, output.stderr + output.stdout)
        XCTAssertEqual(stored, whole, "a 200 answer starts over: the kept half is not prepended")
        let seen = try requests(server, "resume-ignored")
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(seen.last?.range, "bytes=\(size / 2)-")
        XCTAssertEqual(seen.last?.sent, size)
    }

    func testARangeAnswerThatStartsElsewhereIsNeverSpliced() throws {
        let (output, stored, whole, server) = try fetch("resume-shifted", mode: "shifted")
        let seen = try requests(server, "resume-shifted")
        XCTAssertGreaterThanOrEqual(seen.count, 2, "\(seen)")
        XCTAssertEqual(seen.dropFirst().first?.range, "bytes=\(size / 2)-")
        XCTAssertEqual(output.status, 0, "the retry without Range gets the whole body: " + output.stdout)
        XCTAssertEqual(stored, whole, "stored only as the whole body, never half + a shifted rest")
        XCTAssertEqual(seen.count, 3, "\(seen)")
        XCTAssertNil(seen.last?.range, "after the refused 206 the body is asked for whole")
    }

    func testAnEmptyAnswerToTheRangeRequestNeverLeavesTheKeptHalfAsThePhoto() throws {
        let (output, stored, whole, server) = try fetch("resume-empty", mode: "empty")
        let seen = try requests(server, "resume-empty")
        XCTAssertEqual(seen.dropFirst().first?.range, "bytes=\(size / 2)-", "\(seen)")
        XCTAssertEqual(output.status, 0, "the retry after the empty answer asks for the whole body: " + output.stdout)
        XCTAssertEqual(stored, whole, "stored whole, never the kept half")
        XCTAssertNil(seen.last?.range, "after the empty answer the body is asked for whole")
    }

    func testARangeAnswerOfAnotherVersionIsNeverSplicedOnTheKeptHalf() throws {
        let (output, stored, whole, server) = try fetch("resume-changed", mode: "lm-changed")
        let seen = try requests(server, "resume-changed")
        XCTAssertEqual(seen.dropFirst().first?.range, "bytes=\(size / 2)-", "\(seen)")
        XCTAssertEqual(output.status, 0, output.stdout)
        XCTAssertEqual(stored, whole, "the kept half of one version never gets the rest of another")
        XCTAssertNil(seen.last?.range, "after the refused 206 the body is asked for whole")
    }

    /// A resumed answer that ends cleanly but short (close-delimited, no Content-Length): the
    /// next Range starts where the bytes kept now end, not where the first resume did.
    func testAResumedAnswerThatEndsShortIsResumedAgainFromWhereItStopped() throws {
        let (output, stored, whole, server) = try fetch("resume-short", mode: "short-close")
        XCTAssertEqual(output.status, 0, output.stderr + output.stdout)
        XCTAssertEqual(stored, whole, "stored whole: the first half, the quarter after it, then the rest")
        let seen = try requests(server, "resume-short")
        XCTAssertEqual(seen.map(\.range), [nil, "bytes=\(size / 2)-", "bytes=\(size / 2 + size / 4)-"], "\(seen)")
        XCTAssertLessThanOrEqual(seen.last?.sent ?? 0, size / 4 + 1, "only the last quarter was sent the third time")
    }
}
