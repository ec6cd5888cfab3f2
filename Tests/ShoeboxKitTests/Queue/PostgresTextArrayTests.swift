import Foundation
@testable import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// `PostgresValue.textArray`, the `text[]` literal the queue's batches and the catalog's
/// batched source lookups send, read back by a real PostgreSQL 15.
final class PostgresTextArrayTests: XCTestCase {
    nonisolated(unsafe) static var server: PostgresServer?
    nonisolated(unsafe) static var startError: Error?

    override class func setUp() {
        super.setUp()
        guard PostgresServer.isAvailable else { return }
        do {
            server = try PostgresServer()
        } catch {
            startError = error
        }
    }

    override class func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }

    private var uri = ""

    override func setUpWithError() throws {
        guard PostgresServer.isAvailable else {
            throw XCTSkip("PostgreSQL 15 is not installed (bash .ci/install-deps installs it)")
        }
        if let error = Self.startError { throw error }
        uri = try XCTUnwrap(Self.server).makeDatabase()
    }

    static let odd = [
        "", "plain", "quote\"d", "back\\slash", "\"\u{301}", "\\\u{301}", "{braces},comma", "NULL", "null", " spaces ",
        "tab\tnew\nline", "été", "e\u{301}te\u{301}", "☃🐈", String(repeating: "x", count: 10_000),
    ]

    func testElementsComeBackByteForByte() throws {
        let connection = try PostgresConnection(uri: try PostgresURI(uri))
        defer { connection.close() }
        let back = try connection.query(
            "SELECT element FROM unnest($1::text[]) WITH ORDINALITY AS t (element, n) ORDER BY n", [.textArray(Self.odd)]
        ) { $0.string(0) }
        XCTAssertEqual(back.map { $0.map { Array($0.utf8) } }, Self.odd.map { Array($0.utf8) })
        XCTAssertEqual(
            try connection.query("SELECT cardinality($1::text[])", [.textArray([])]) { $0.int(0) }, [0])
        XCTAssertEqual(
            try connection.query("SELECT array_to_string($1::bigint[], ',')", [.integerArray([1, -2, Int64.max])]) {
                $0.string(0)
            }, ["1,-2,\(Int64.max)"])
    }

    /// The catalog's batched lookup finds sources whose URLs hold a quote before a combining
    /// mark (its literal was built with Foundation's replacingOccurrences, which skipped it).
    func testCatalogBatchedLookupFindsOddURLs() throws {
        let catalog = try PostgresCatalog(uri: uri)
        defer { catalog.close() }
        let urls = ["http://h/\"\u{301}", "http://h/\\", "http://h/plain"]
        for url in urls {
            try catalog.upsertSource(
                SourceRecord(
                    url: url, finalURL: nil, sha256: nil, etag: nil, lastModified: nil, httpStatus: 404,
                    fetchedAt: "2026-12-02T00:00:00Z", outcome: .failed, reason: "HTTP 404"))
        }
        let found = try catalog.sources(urls: urls + ["http://h/absent"])
        XCTAssertEqual(Set(found.keys.map { Array($0.utf8) }), Set(urls.map { Array($0.utf8) }))
    }
}
