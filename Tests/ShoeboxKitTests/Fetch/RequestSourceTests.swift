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
        func recordMetadata(lens: String, exposure: String, sha256: String) throws { throw error }
        func insertOriginalIfAbsent(_ record: OriginalRecord) throws -> Bool { throw error }
        func reservePath(_ path: String, for sha256: String) throws -> Bool { throw error }
        func releaseReservations() throws {}
        func sources(urls: [String]) throws -> [String: SourceRecord] { throw error }
        func originals(after path: String?, limit: Int) throws -> [OriginalRecord] { throw error }
        func allOriginals() throws -> [OriginalRecord] { throw error }
        func countOriginals() throws -> Int { throw error }
        func source(url: String) throws -> SourceRecord? { throw error }
        func hasSources() throws -> Bool { true }
        func upsertSource(_ record: SourceRecord) throws { throw error }
        func sources(sha256: String) throws -> [SourceRecord] { throw error }
        func upsertSourceVersion(_ version: SourceVersion) throws { throw error }
        func sourceVersions(sha256: String) throws -> [SourceVersion] { throw error }
        func sourceVersions(url: String) throws -> [SourceVersion] { throw error }
        func allSources() throws -> [SourceRecord] { throw error }
        func countSources() throws -> Int { throw error }
        func thumbnails(sha256: String) throws -> [ThumbnailRecord] { throw error }
        func allThumbnails() throws -> [ThumbnailRecord] { throw error }
        func upsertThumbnail(_ record: ThumbnailRecord) throws { throw error }
        func removeThumbnail(path: String) throws { throw error }
        func close() {}
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

    /// Versions before the password was cut recorded the whole URL: such a URL is still
    /// known (skipped, without a request), and shown without its password.
    func testAURLRecordedWithItsPasswordByAnEarlierVersionIsSkipped() throws {
        let folder = NSTemporaryDirectory() + "request-source-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let layout = LibraryLayout(root: folder + "/library")
        let store = try LocalOriginalStore(layout: layout)
        let catalog = try SQLiteCatalog(path: layout.catalog)
        let sha256 = String(repeating: "ab", count: 32)
        let legacy = "http://alice:s3cret@127.0.0.1:9/a.jpg"
        try catalog.insertOriginal(OriginalRecord(sha256: sha256, path: "originals/2024/01/02/a.jpg", bytes: 10,
                                                  contentType: "image/jpeg", addedAt: "2024-01-02T00:00:00Z"))
        try catalog.upsertSource(SourceRecord(url: legacy, finalURL: legacy, sha256: sha256, httpStatus: 200,
                                              fetchedAt: "2024-01-02T00:00:00Z", outcome: .stored))
        // A later failure under the new form (another password, say) names no copy: the old record still counts.
        try catalog.upsertSource(SourceRecord(url: "http://alice@127.0.0.1:9/a.jpg", httpStatus: 401,
                                              fetchedAt: "2024-02-03T00:00:00Z", outcome: .failed))
        let list = folder + "/list.txt"
        try "\(legacy)\nhttp://alice:other@127.0.0.1:9/b.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        var reported: [FetchResult] = []
        var source = RequestSource(
            configuration: FetchRun.Configuration(layout: layout), lists: [list], catalog: catalog, store: store,
            report: { reported.append($0) }, countRepeat: {}, onInput: {})
        defer { source.stop() }
        var requested: [String] = []
        while true {
            switch source.next() {
            case .waiting: Thread.sleep(forTimeInterval: 0.01)
            case .request(let request): requested.append(request.item.url)
            case .end:
                XCTAssertEqual(requested, ["http://alice:other@127.0.0.1:9/b.jpg"], "only the URL the catalog does not know")
                XCTAssertEqual(reported.map(\.outcome), [.skipped])
                XCTAssertEqual(reported.first?.url, "http://alice@127.0.0.1:9/a.jpg")
                XCTAssertEqual(reported.first?.finalURL, "http://alice@127.0.0.1:9/a.jpg")
                XCTAssertEqual(reported.first?.path, "originals/2024/01/02/a.jpg")
                return
            }
        }
    }
}
