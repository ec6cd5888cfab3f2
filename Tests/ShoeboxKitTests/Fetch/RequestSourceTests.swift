import Foundation
import XCTest
@testable import ShoeboxKit

final class RequestSourceTests: XCTestCase {
    /// A catalog that knows sources but cannot look one up (busy, I/O error).
    private final class FailingLookups: Catalog {
        let error = CatalogError.busy(path: "catalog.sqlite", detail: "database is locked")
        func transaction<T>(_ body: () throws -> T) throws -> T { try body() }
        func original(sha256: String) throws -> OriginalRecord? { throw error }
        func original(path: String) throws -> OriginalRecord? { throw error }
        func hasOriginal(pathIgnoringCase path: String) throws -> Bool { throw error }
        func insertOriginal(_ record: OriginalRecord) throws { throw error }
        func allOriginals() throws -> [OriginalRecord] { throw error }
        func countOriginals() throws -> Int { throw error }
        func source(url: String) throws -> SourceRecord? { throw error }
        func hasSources() throws -> Bool { true }
        func upsertSource(_ record: SourceRecord) throws { throw error }
        func sources(sha256: String) throws -> [SourceRecord] { throw error }
        func thumbnails(sha256: String) throws -> [ThumbnailRecord] { throw error }
        func allThumbnails() throws -> [ThumbnailRecord] { throw error }
        func upsertThumbnail(_ record: ThumbnailRecord) throws { throw error }
        func removeThumbnail(path: String) throws { throw error }
    }

    func testACatalogThatCannotAnswerStopsTheRunInsteadOfRefetchingEverything() throws {
        let folder = NSTemporaryDirectory() + "request-source-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = folder + "/list.txt"
        try "http://127.0.0.1:9/a.jpg\nhttp://127.0.0.1:9/b.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        var reported: [FetchResult] = []
        let layout = LibraryLayout(root: folder + "/library")
        var source = RequestSource(
            configuration: FetchRun.Configuration(layout: layout), lists: [list],
            catalog: FailingLookups(), store: try LocalOriginalStore(layout: layout),
            report: { reported.append($0) }, countRepeat: {}, onInput: {})
        defer { source.stop() }
        var next = source.next()
        while case .waiting = next {
            Thread.sleep(forTimeInterval: 0.01)
            next = source.next()
        }
        guard case .end = next else { return XCTFail("a request was made although the catalog could not say it is new: \(next)") }
        XCTAssertEqual(source.readError as? CatalogError, FailingLookups().error)
        XCTAssertTrue(reported.isEmpty)
    }
}
