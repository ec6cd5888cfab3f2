import Foundation
@testable import ShoeboxKit

/// A small in-memory `Catalog` for engine tests that need no SQLite file.
final class InMemoryCatalog: Catalog {
    private(set) var originals: [String: OriginalRecord] = [:]
    private(set) var sourcesByURL: [String: SourceRecord] = [:]
    private(set) var thumbnailsByPath: [String: ThumbnailRecord] = [:]
    private(set) var committedTransactions = 0

    func transaction<T>(_ body: () throws -> T) throws -> T {
        let saved = (originals, sourcesByURL, thumbnailsByPath)
        do {
            let result = try body()
            committedTransactions += 1
            return result
        } catch {
            (originals, sourcesByURL, thumbnailsByPath) = saved
            throw error
        }
    }

    func original(sha256: String) throws -> OriginalRecord? { originals[sha256] }
    func original(path: String) throws -> OriginalRecord? { originals.values.first { $0.path == path } }

    func insertOriginal(_ record: OriginalRecord) throws {
        guard originals[record.sha256] == nil, try original(path: record.path) == nil else {
            throw CocoaError(.fileWriteFileExists)
        }
        originals[record.sha256] = record
    }

    func removeOriginal(sha256: String) { originals[sha256] = nil }

    func allOriginals() throws -> [OriginalRecord] { originals.values.sorted { $0.path < $1.path } }
    func countOriginals() throws -> Int { originals.count }
    func source(url: String) throws -> SourceRecord? { sourcesByURL[url] }
    func upsertSource(_ record: SourceRecord) throws { sourcesByURL[record.url] = record }
    func sources(sha256: String) throws -> [SourceRecord] { sourcesByURL.values.filter { $0.sha256 == sha256 } }
    func thumbnails(sha256: String) throws -> [ThumbnailRecord] {
        thumbnailsByPath.values.filter { $0.originalSHA256 == sha256 }.sorted { $0.path < $1.path }
    }
    func allThumbnails() throws -> [ThumbnailRecord] { thumbnailsByPath.values.sorted { $0.path < $1.path } }
    func upsertThumbnail(_ record: ThumbnailRecord) throws { thumbnailsByPath[record.path] = record }
    func removeThumbnail(path: String) throws { thumbnailsByPath[path] = nil }
}
