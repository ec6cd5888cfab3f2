import Foundation
import ShoeboxKit

/// A catalog held in memory, keeping the races `Catalog` states (a sha256 or a path,
/// case-folded, recorded once; a transaction all or nothing), for in-process tests of
/// what writes to a catalog. `failNextCommit` makes the next outermost transaction fail
/// as a full disk or a lost server would, after its body ran: nothing of it is kept.
public final class InMemoryCatalog: Catalog, @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private struct State {
        var originals: [String: OriginalRecord] = [:]
        var sources: [String: SourceRecord] = [:]
        var versions: [String: SourceVersion] = [:]
        var thumbnails: [String: ThumbnailRecord] = [:]
    }

    private let lock = NSRecursiveLock()
    private var state = State()
    private var depth = 0
    /// Set to make the next outermost transaction fail (then cleared).
    public var failNextCommit: Failure?
    /// Set to make the next outermost transaction commit, then throw this error as if its
    /// answer had been lost on the way (then cleared).
    public var loseNextCommitAnswer: Error?
    /// Transactions committed so far.
    public private(set) var commits = 0

    public init() {}

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let saved = state
        depth += 1
        defer { depth -= 1 }
        do {
            let value = try body()
            if depth == 1 {
                if let failure = failNextCommit {
                    failNextCommit = nil
                    throw failure
                }
                commits += 1
                if let lost = loseNextCommitAnswer {
                    loseNextCommitAnswer = nil
                    throw CommittedAnswerLost(error: lost)
                }
            }
            return value
        } catch let answerLost as CommittedAnswerLost {
            throw answerLost.error  // committed: the state stays
        } catch {
            state = saved
            throw error
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    public func original(sha256: String) throws -> OriginalRecord? { locked { state.originals[sha256] } }
    public func original(path: String) throws -> OriginalRecord? { locked { state.originals.values.first { $0.path == path } } }

    public func hasOriginal(pathIgnoringCase path: String) throws -> Bool {
        let folded = CaseFoldedPath.fold(path)
        return locked { state.originals.values.contains { CaseFoldedPath.fold($0.path) == folded } }
    }

    public func insertOriginal(_ record: OriginalRecord) throws {
        try locked {
            guard state.originals[record.sha256] == nil else { throw Failure(description: "sha256 \(record.sha256) is recorded already") }
            guard try !hasOriginal(pathIgnoringCase: record.path) else { throw Failure(description: "path \(record.path) is taken") }
            state.originals[record.sha256] = record
        }
    }

    public func recordMetadata(lens: String, exposure: String, sha256: String) throws {
        locked {
            if state.originals[sha256]?.lens == nil { state.originals[sha256]?.lens = lens }
            if state.originals[sha256]?.exposure == nil { state.originals[sha256]?.exposure = exposure }
        }
    }

    private var reserved: [String: String] = [:]

    public func reservePath(_ path: String, for sha256: String) throws -> Bool {
        try locked {
            let folded = CaseFoldedPath.fold(path)
            if let holder = reserved[folded] { return holder == sha256 }
            if try hasOriginal(pathIgnoringCase: path) { return false }
            reserved[folded] = sha256
            return true
        }
    }

    public func releaseReservations() throws { locked { reserved.removeAll() } }

    public func insertOriginalIfAbsent(_ record: OriginalRecord) throws -> Bool {
        try locked {
            if state.originals[record.sha256] != nil { return false }
            try insertOriginal(record)
            return true
        }
    }

    public func originals(after path: String?, limit: Int) throws -> [OriginalRecord] {
        locked { Array(state.originals.values.filter { $0.path > (path ?? "") }.sorted { $0.path < $1.path }.prefix(limit)) }
    }

    public func allOriginals() throws -> [OriginalRecord] { locked { state.originals.values.sorted { $0.path < $1.path } } }
    public func countOriginals() throws -> Int { locked { state.originals.count } }

    public func source(url: String) throws -> SourceRecord? { locked { state.sources[url] } }
    public func sources(urls: [String]) throws -> [String: SourceRecord] {
        locked { state.sources.filter { urls.contains($0.key) } }
    }
    public func hasSources() throws -> Bool { locked { !state.sources.isEmpty } }
    public func upsertSource(_ record: SourceRecord) throws {
        try locked {
            if let version = SourceVersion(record) { try upsertSourceVersion(version) }
            state.sources[record.url] = record
        }
    }
    public func upsertSourceVersion(_ version: SourceVersion) throws {
        locked { SourceVersion.merge(version, into: &state.versions) }
    }
    public func sourceVersions(sha256: String) throws -> [SourceVersion] {
        locked { state.versions.values.filter { $0.sha256 == sha256 }.sorted { ($0.lastFetchedAt, $1.url) > ($1.lastFetchedAt, $0.url) } }
    }
    public func sourceVersions(url: String) throws -> [SourceVersion] {
        locked { state.versions.values.filter { $0.url == url }.sorted { ($0.lastFetchedAt, $1.sha256) > ($1.lastFetchedAt, $0.sha256) } }
    }
    public func sources(sha256: String) throws -> [SourceRecord] {
        locked { state.sources.values.filter { $0.sha256 == sha256 }.sorted { $0.url < $1.url } }
    }
    public func allSources() throws -> [SourceRecord] { locked { state.sources.values.sorted { $0.url < $1.url } } }
    public func countSources() throws -> Int { locked { state.sources.count } }

    public func thumbnails(sha256: String) throws -> [ThumbnailRecord] {
        locked { state.thumbnails.values.filter { $0.originalSHA256 == sha256 }.sorted { $0.path < $1.path } }
    }
    public func allThumbnails() throws -> [ThumbnailRecord] { locked { state.thumbnails.values.sorted { $0.path < $1.path } } }
    public func upsertThumbnail(_ record: ThumbnailRecord) throws { locked { state.thumbnails[record.path] = record } }
    public func removeThumbnail(path: String) throws { locked { _ = state.thumbnails.removeValue(forKey: path) } }

    public func close() {}
}

/// A commit that happened, whose answer is lost (`InMemoryCatalog.loseNextCommitAnswer`).
private struct CommittedAnswerLost: Error {
    let error: Error
}
