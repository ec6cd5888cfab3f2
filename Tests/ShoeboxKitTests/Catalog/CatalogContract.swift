import Foundation
import ShoeboxKit
import XCTest

/// The behaviour every `Catalog` implementation owes its callers, as assertions run against
/// any of them (SQLiteCatalog, PostgresCatalog): the siblings are held to one contract.
///
/// `open` opens a new connection to one fresh, empty catalog (each call another connection
/// to the same store: the concurrency check uses two). `isConstraint` recognises the
/// implementation's typed error for a refused write (duplicate sha256 or path, unknown original).
struct CatalogContract {
    let open: () throws -> Catalog
    let isConstraint: (Error) -> Bool

    // MARK: Records

    /// Every field set (GPS with many digits, a 64-bit size).
    static func original(_ n: Int, path: String? = nil) -> OriginalRecord {
        OriginalRecord(
            sha256: uniqueHash(n), path: path ?? "originals/2024/05/0\(n % 10)/IMG_\(n).jpg",
            bytes: 5_000_000_000 + Int64(n), contentType: "image/jpeg", width: 4000, height: 3000,
            takenAt: "2024:05:01 12:00:0\(n % 10)", datedBy: .exif, make: "Canon", model: "EOS \(n)",
            lens: n % 2 == 0 ? "EF\(n)mm f/2.8L USM" : "", gpsLatitude: 48.858_370_123_456_78, gpsLongitude: -2.294_481_987_654_321, gpsAltitude: 1e-300,
            orientation: 6, addedAt: "2026-11-30T01:00:00Z")
    }

    /// Only the required fields: every optional column NULL.
    static func bareOriginal(_ n: Int, path: String? = nil) -> OriginalRecord {
        OriginalRecord(
            sha256: uniqueHash(n), path: path ?? "originals/bare/\(n).png", bytes: 0, contentType: "image/png",
            addedAt: "2026-11-30T02:00:00Z")
    }

    /// 64 lower-case hex digits, distinct for each n.
    static func uniqueHash(_ n: Int) -> String {
        let digits = String(n, radix: 16)
        return String(repeating: "a", count: 64 - digits.count) + digits
    }

    static func source(_ url: String, sha: String?, outcome: FetchOutcome = .stored) -> SourceRecord {
        SourceRecord(
            url: url, finalURL: url + "?final", sha256: sha, etag: "\"e-\(url.count)\"",
            lastModified: "Wed, 01 May 2024 10:00:00 GMT", httpStatus: 200, fetchedAt: "2026-11-30T01:02:03Z",
            outcome: outcome, reason: outcome.isSuccess ? nil : "HTTP 404")
    }

    static func thumbnail(_ sha: String, size: String, width: Int = 256, settings: String? = "jpeg q80 inside stripped r2")
        -> ThumbnailRecord
    {
        ThumbnailRecord(
            originalSHA256: sha, size: size, path: "thumbnails/\(size)/\(sha.prefix(2))/\(sha).jpg", format: "jpeg",
            width: width, height: 192, bytes: 12_345, createdAt: "2026-11-30T01:05:00Z", settings: settings)
    }

    private struct Planned: Error {}

    private func assertConstraint(
        _ expression: @autoclosure () throws -> Void, _ message: String, file: StaticString, line: UInt
    ) {
        XCTAssertThrowsError(try expression(), message, file: file, line: line) { error in
            XCTAssertTrue(isConstraint(error), "\(message): expected a constraint error, got \(error)", file: file, line: line)
        }
    }

    // MARK: Checks

    /// Originals, sources and thumbnails come back field for field, NULLs as nil.
    func checkRoundTrips(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        let full = Self.original(1)
        let bare = Self.bareOriginal(2)
        var odd = Self.original(3, path: "originals/odd/Été ☃ 'quote' \"dq\" \\ %_.jpg")
        odd.gpsLatitude = -0.000_001
        odd.gpsLongitude = 179.999_999_999_999_97
        odd.gpsAltitude = -431.5
        odd.datedBy = .lastModified
        odd.width = Int(Int32.max) + 10
        try catalog.insertOriginal(full)
        try catalog.insertOriginal(bare)
        try catalog.insertOriginal(odd)
        XCTAssertEqual(try catalog.original(sha256: full.sha256), full, file: file, line: line)
        XCTAssertEqual(try catalog.original(sha256: bare.sha256), bare, file: file, line: line)
        XCTAssertEqual(try catalog.original(path: odd.path), odd, file: file, line: line)
        XCTAssertNil(try catalog.original(sha256: Self.uniqueHash(99)), file: file, line: line)
        XCTAssertNil(try catalog.original(path: "originals/none.jpg"), file: file, line: line)
        XCTAssertEqual(try catalog.countOriginals(), 3, file: file, line: line)
        XCTAssertTrue(try catalog.hasOriginal(pathIgnoringCase: full.path.uppercased()), file: file, line: line)
        XCTAssertTrue(try catalog.hasOriginal(pathIgnoringCase: "originals/ODD/été ☃ 'QUOTE' \"DQ\" \\ %_.JPG"),
                      file: file, line: line)
        XCTAssertFalse(try catalog.hasOriginal(pathIgnoringCase: "originals/odd/ete.jpg"), file: file, line: line)

        XCTAssertFalse(try catalog.hasSources(), file: file, line: line)
        let stored = Self.source("https://example.org/a.jpg", sha: full.sha256)
        let failed = SourceRecord(url: "https://example.org/missing.jpg", fetchedAt: "2026-11-30T03:00:00Z",
                                  outcome: .failed, reason: "HTTP 404")
        try catalog.upsertSource(stored)
        try catalog.upsertSource(failed)
        XCTAssertEqual(try catalog.source(url: stored.url), stored, file: file, line: line)
        XCTAssertEqual(try catalog.source(url: failed.url), failed, file: file, line: line)
        XCTAssertNil(try catalog.source(url: "https://example.org/none"), file: file, line: line)
        var replaced = stored
        replaced.outcome = .unchanged
        replaced.httpStatus = 304
        replaced.etag = nil
        try catalog.upsertSource(replaced)
        XCTAssertEqual(try catalog.source(url: stored.url), replaced, file: file, line: line)
        XCTAssertEqual(try catalog.countSources(), 2, file: file, line: line)
        XCTAssertTrue(try catalog.hasSources(), file: file, line: line)
        XCTAssertEqual(try catalog.allSources(), [replaced, failed], file: file, line: line)

        let thumb = Self.thumbnail(full.sha256, size: "256")
        let bareThumb = Self.thumbnail(bare.sha256, size: "300x200", settings: nil)
        try catalog.upsertThumbnail(thumb)
        try catalog.upsertThumbnail(bareThumb)
        XCTAssertEqual(try catalog.thumbnails(sha256: full.sha256), [thumb], file: file, line: line)
        XCTAssertEqual(try catalog.thumbnails(sha256: bare.sha256), [bareThumb], file: file, line: line)
        catalog.close()

        // Another connection sees it all.
        let again = try open()
        XCTAssertEqual(try again.allOriginals().count, 3, file: file, line: line)
        XCTAssertEqual(try again.original(sha256: odd.sha256), odd, file: file, line: line)
        XCTAssertEqual(try again.allThumbnails().count, 2, file: file, line: line)
        again.close()
    }

    /// insertOriginal refuses a sha256 or a path already recorded, and changes nothing.
    func checkInsertConflicts(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        let first = Self.original(1)
        try catalog.insertOriginal(first)
        assertConstraint(try catalog.insertOriginal(Self.original(1, path: "originals/other.jpg")),
                         "same sha256, other path", file: file, line: line)
        assertConstraint(try catalog.insertOriginal(Self.original(2, path: first.path)),
                         "same path, other sha256", file: file, line: line)
        XCTAssertEqual(try catalog.allOriginals(), [first], file: file, line: line)
        // A source or thumbnail naming an unknown original is refused too (checked at commit).
        assertConstraint(try catalog.upsertSource(Self.source("https://x/1", sha: Self.uniqueHash(77))),
                         "source of an unknown original", file: file, line: line)
        assertConstraint(try catalog.upsertThumbnail(Self.thumbnail(Self.uniqueHash(77), size: "256")),
                         "thumbnail of an unknown original", file: file, line: line)
        XCTAssertEqual(try catalog.countSources(), 0, file: file, line: line)
        catalog.close()
    }

    /// insertOriginalIfAbsent: true, then false for the same sha256 (nothing changes); a path
    /// taken by another original still fails.
    func checkInsertIfAbsent(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        let first = Self.original(1)
        XCTAssertTrue(try catalog.insertOriginalIfAbsent(first), file: file, line: line)
        XCTAssertFalse(try catalog.insertOriginalIfAbsent(Self.original(1, path: "originals/again.jpg")),
                       file: file, line: line)
        assertConstraint(_ = try catalog.insertOriginalIfAbsent(Self.original(2, path: first.path)),
                         "if-absent with a taken path", file: file, line: line)
        XCTAssertEqual(try catalog.allOriginals(), [first], file: file, line: line)
        catalog.close()
    }

    /// Two connections inserting the same content at the same moment: one row, one `true`.
    func checkConcurrentInsertIfAbsent(rounds: Int = 20, file: StaticString = #filePath, line: UInt = #line) throws {
        let catalogs = [try open(), try open()]
        let results = ResultBox()
        for round in 0..<rounds {
            let record = Self.original(1000 + round)
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for (index, catalog) in catalogs.enumerated() {
                group.enter()
                let box = UncheckedBox(catalog)
                Thread {
                    start.wait()
                    do {
                        // Each side under its own name, so that only the sha256 collides.
                        var mine = record
                        mine.path = record.path + ".\(index)"
                        results.add(round: round, try box.value.insertOriginalIfAbsent(mine))
                    } catch {
                        results.fail("\(error)")
                    }
                    group.leave()
                }.start()
            }
            start.signal()
            start.signal()
            group.wait()
        }
        XCTAssertEqual(results.failures, [], file: file, line: line)
        for round in 0..<rounds {
            XCTAssertEqual(results.answers(round: round).sorted { !$0 && $1 }, [false, true],
                           "round \(round): exactly one true", file: file, line: line)
        }
        XCTAssertEqual(try catalogs[0].countOriginals(), rounds, file: file, line: line)
        for catalog in catalogs { catalog.close() }
    }

    /// A transaction whose body throws keeps nothing, and the error is the body's.
    func checkRollback(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        XCTAssertThrowsError(try catalog.transaction {
            try catalog.insertOriginal(Self.original(1))
            try catalog.upsertSource(Self.source("https://x/1", sha: Self.uniqueHash(1)))
            try catalog.upsertThumbnail(Self.thumbnail(Self.uniqueHash(1), size: "256"))
            XCTAssertEqual(try catalog.countOriginals(), 1, "visible inside", file: file, line: line)
            throw Planned()
        }, file: file, line: line) { error in
            XCTAssertTrue(error is Planned, "got \(error)", file: file, line: line)
        }
        XCTAssertEqual(try catalog.countOriginals(), 0, file: file, line: line)
        XCTAssertEqual(try catalog.countSources(), 0, file: file, line: line)
        XCTAssertEqual(try catalog.allThumbnails(), [], file: file, line: line)
        // Still usable, and a source may precede its original within one transaction.
        try catalog.transaction {
            try catalog.upsertSource(Self.source("https://x/2", sha: Self.uniqueHash(2)))
            try catalog.insertOriginal(Self.original(2))
        }
        XCTAssertEqual(try catalog.countSources(), 1, file: file, line: line)
        // A deferred foreign key broken at commit: nothing of the transaction is kept.
        XCTAssertThrowsError(try catalog.transaction {
            try catalog.insertOriginal(Self.original(3))
            try catalog.upsertSource(Self.source("https://x/4", sha: Self.uniqueHash(4)))
        }, file: file, line: line) { error in
            XCTAssertTrue(isConstraint(error), "got \(error)", file: file, line: line)
        }
        XCTAssertNil(try catalog.original(sha256: Self.uniqueHash(3)), file: file, line: line)
        XCTAssertEqual(try catalog.countOriginals(), 1, file: file, line: line)
        catalog.close()
    }

    /// Nested transactions are savepoints: an inner failure undoes only the inner body (even a
    /// refused statement), an outer failure undoes everything.
    func checkNestedTransactions(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        try catalog.transaction {
            try catalog.insertOriginal(Self.original(1))
            XCTAssertThrowsError(try catalog.transaction {
                try catalog.insertOriginal(Self.original(2))
                throw Planned()
            }, file: file, line: line)
            // A refused statement inside a nested transaction leaves the outer one usable.
            XCTAssertThrowsError(try catalog.transaction {
                try catalog.insertOriginal(Self.original(1, path: "originals/dup.jpg"))
            }, file: file, line: line) { error in
                XCTAssertTrue(isConstraint(error), "got \(error)", file: file, line: line)
            }
            try catalog.transaction { try catalog.insertOriginal(Self.original(3)) }
        }
        XCTAssertEqual(try catalog.allOriginals().map(\.sha256).sorted(),
                       [Self.uniqueHash(1), Self.uniqueHash(3)].sorted(), file: file, line: line)

        XCTAssertThrowsError(try catalog.transaction {
            try catalog.transaction { try catalog.insertOriginal(Self.original(4)) }
            throw Planned()
        }, file: file, line: line)
        XCTAssertNil(try catalog.original(sha256: Self.uniqueHash(4)), "inner commit undone by the outer failure",
                     file: file, line: line)
        XCTAssertEqual(try catalog.transaction { try catalog.transaction { try catalog.countOriginals() } }, 2,
                       file: file, line: line)
        catalog.close()
    }

    /// `originals(after:limit:)` pages through 25 originals 10 at a time, in byte order of path.
    func checkPagedCursor(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        // Upper case before lower case, '_' between, non-ASCII after: byte order, not a locale's.
        let names = ["B", "a", "_x", "z", "Zy", "Été", "été2", "0", "ä", "Ab", "ac", "bb"]
        var paths = names.map { "originals/p/\($0).jpg" }
        paths += (0..<(25 - paths.count)).map { String(format: "originals/2024/%02d/IMG_%d.jpg", $0 % 12 + 1, $0) }
        try catalog.transaction {
            for (n, path) in paths.enumerated().reversed() { try catalog.insertOriginal(Self.original(n, path: path)) }
        }
        let expected = paths.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var seen: [String] = []
        var pages: [Int] = []
        var after: String?
        while true {
            let page = try catalog.originals(after: after, limit: 10)
            if page.isEmpty { break }
            pages.append(page.count)
            seen += page.map(\.path)
            after = page.last?.path
        }
        XCTAssertEqual(pages, [10, 10, 5], file: file, line: line)
        XCTAssertEqual(seen, expected, file: file, line: line)
        XCTAssertEqual(try catalog.allOriginals().map(\.path), expected, file: file, line: line)
        XCTAssertEqual(try catalog.originals(after: expected[23], limit: 10).map(\.path), [expected[24]], file: file, line: line)
        XCTAssertEqual(try catalog.originals(after: nil, limit: 0), [], file: file, line: line)
        catalog.close()
    }

    /// sources(sha256:) gives the URLs that delivered one original, by URL.
    func checkSourcesBySHA(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        try catalog.insertOriginal(Self.original(1))
        try catalog.insertOriginal(Self.original(2))
        let a = Self.source("https://b.example/1.jpg", sha: Self.uniqueHash(1))
        let b = Self.source("https://a.example/1-copy.jpg", sha: Self.uniqueHash(1), outcome: .duplicate)
        let c = Self.source("https://a.example/2.jpg", sha: Self.uniqueHash(2))
        let failed = Self.source("https://a.example/404.jpg", sha: nil, outcome: .failed)
        for source in [a, b, c, failed] { try catalog.upsertSource(source) }
        XCTAssertEqual(try catalog.sources(sha256: Self.uniqueHash(1)), [b, a], file: file, line: line)
        XCTAssertEqual(try catalog.sources(sha256: Self.uniqueHash(2)), [c], file: file, line: line)
        XCTAssertEqual(try catalog.sources(sha256: Self.uniqueHash(3)), [], file: file, line: line)
        XCTAssertEqual(try catalog.allSources().map(\.url), [b, c, failed, a].map(\.url), file: file, line: line)
        catalog.close()
    }

    /// A URL's history: new content for a URL replaces its `sources` row, and the older content
    /// keeps a version saying where it came from; the same pair again moves its latest fetch only.
    func checkSourceVersions(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        for n in 1...3 { try catalog.insertOriginal(Self.original(n)) }
        let url = "https://a.example/moving.jpg"
        var first = Self.source(url, sha: Self.uniqueHash(1))
        first.fetchedAt = "2026-01-01T00:00:00Z"
        var second = Self.source(url, sha: Self.uniqueHash(2))
        second.fetchedAt = "2026-02-01T00:00:00Z"
        second.etag = "\"v2\""
        var again = first
        again.fetchedAt = "2026-03-01T00:00:00Z"
        try catalog.upsertSource(first)
        try catalog.upsertSources([second, Self.source("https://b.example/x.jpg", sha: Self.uniqueHash(1), outcome: .duplicate)])
        XCTAssertEqual(try catalog.source(url: url)?.sha256, Self.uniqueHash(2), file: file, line: line)
        XCTAssertEqual(try catalog.sources(sha256: Self.uniqueHash(1)).map(\.url), ["https://b.example/x.jpg"], file: file, line: line)
        XCTAssertEqual(try catalog.sourceVersions(sha256: Self.uniqueHash(1)).map(\.url).sorted(), ["https://a.example/moving.jpg", "https://b.example/x.jpg"],
                       "the older original keeps its URL", file: file, line: line)
        XCTAssertEqual(try catalog.sourceVersions(url: url).map(\.sha256), [Self.uniqueHash(2), Self.uniqueHash(1)], "newest first", file: file, line: line)
        XCTAssertEqual(try catalog.sourceVersions(url: url).first?.etag, "\"v2\"", file: file, line: line)
        // The first content again, twice in one batch: one row, first and latest fetch kept.
        var later = again
        later.fetchedAt = "2026-04-01T00:00:00Z"
        try catalog.upsertSources([again, later])
        let versions = try catalog.sourceVersions(url: url)
        XCTAssertEqual(versions.map(\.sha256), [Self.uniqueHash(1), Self.uniqueHash(2)], file: file, line: line)
        XCTAssertEqual(versions.first?.firstFetchedAt, "2026-01-01T00:00:00Z", file: file, line: line)
        XCTAssertEqual(versions.first?.lastFetchedAt, "2026-04-01T00:00:00Z", file: file, line: line)
        XCTAssertEqual(try catalog.sourceVersions(sha256: Self.uniqueHash(3)), [], file: file, line: line)
        // A failed fetch names no content: no version.
        try catalog.upsertSource(Self.source(url, sha: nil, outcome: .failed))
        XCTAssertEqual(try catalog.sourceVersions(url: url).count, 2, file: file, line: line)
        catalog.close()
    }

    /// Thumbnails: per original by path, replaced by path, removed.
    func checkThumbnails(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        try catalog.insertOriginal(Self.original(1))
        try catalog.insertOriginal(Self.original(2))
        let small = Self.thumbnail(Self.uniqueHash(1), size: "256")
        let large = Self.thumbnail(Self.uniqueHash(1), size: "1024", width: 1024)
        let other = Self.thumbnail(Self.uniqueHash(2), size: "256", settings: nil)
        for thumbnail in [small, large, other] { try catalog.upsertThumbnail(thumbnail) }
        XCTAssertEqual(try catalog.thumbnails(sha256: Self.uniqueHash(1)), [large, small], file: file, line: line)
        var remade = small
        remade.width = 250
        remade.settings = "jpeg q85"
        try catalog.upsertThumbnail(remade)
        XCTAssertEqual(try catalog.thumbnails(sha256: Self.uniqueHash(1)), [large, remade], file: file, line: line)
        try catalog.removeThumbnail(path: large.path)
        try catalog.removeThumbnail(path: "thumbnails/none.jpg")
        XCTAssertEqual(try catalog.allThumbnails(), [remade, other].sorted { $0.path < $1.path }, file: file, line: line)
        catalog.close()
    }

    /// Path reservations: once per path ignoring case, never over an original, shared by the
    /// same content, refused to other content across connections, free once released.
    func checkPathReservations(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open()
        try first.insertOriginal(Self.original(1, path: "originals/2024/05/01/Été.jpg"))
        XCTAssertFalse(try first.reservePath("originals/2024/05/01/été.JPG", for: Self.uniqueHash(2)), "an original holds it", file: file, line: line)
        XCTAssertTrue(try first.reservePath("originals/2024/05/01/b.jpg", for: Self.uniqueHash(2)), file: file, line: line)
        XCTAssertTrue(try first.reservePath("originals/2024/05/01/B.JPG", for: Self.uniqueHash(2)), "same content again", file: file, line: line)
        XCTAssertFalse(try first.reservePath("originals/2024/05/01/b.JPG", for: Self.uniqueHash(3)), "other content", file: file, line: line)
        if !(first is SQLiteCatalog) {
            // A shared catalog: another writer's connection sees the reservation too.
            XCTAssertFalse(try second.reservePath("originals/2024/05/01/b.jpg", for: Self.uniqueHash(3)), "another writer", file: file, line: line)
        }
        try first.releaseReservations()
        XCTAssertTrue(try second.reservePath("originals/2024/05/01/b.jpg", for: Self.uniqueHash(3)), "free once released", file: file, line: line)
        try second.releaseReservations()
        first.close()
        second.close()
    }

    /// Batched writes and lookups agree with one call at a time: every field (NULLs, a 64-bit
    /// size, many-digit doubles, quotes and backslashes) round-trips; content already recorded is
    /// not inserted again; a later record of a URL wins; a taken path fails the whole insert.
    func checkBatchedOriginalsAndSources(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        try catalog.insertOriginal(Self.original(1))
        var odd = Self.original(3, path: #"originals/2024/05/01/a"b\c,d{e} NULL.jpg"#)
        odd.make = #"Can"on\ {x},"#
        let batch = [Self.original(1, path: "originals/again.jpg"), Self.original(2), odd, Self.bareOriginal(4)]
        let inserted = try catalog.transaction { try catalog.insertOriginalsIfAbsent(batch) }
        XCTAssertEqual(inserted, Set([2, 3, 4].map(Self.uniqueHash)), file: file, line: line)
        XCTAssertEqual(try catalog.allOriginals(), [Self.original(1), Self.original(2), odd, Self.bareOriginal(4)].sorted { $0.path < $1.path },
                       file: file, line: line)
        let found = try catalog.originals(sha256s: [1, 3, 3, 9].map(Self.uniqueHash))
        XCTAssertEqual(found, [Self.uniqueHash(1): Self.original(1), Self.uniqueHash(3): odd], file: file, line: line)
        XCTAssertEqual(try catalog.originals(sha256s: []), [:], file: file, line: line)
        XCTAssertEqual(try catalog.insertOriginalsIfAbsent([]), [], file: file, line: line)
        assertConstraint(_ = try catalog.transaction { try catalog.insertOriginalsIfAbsent([Self.original(5), Self.original(6, path: odd.path)]) },
                         "a batch with a taken path", file: file, line: line)
        XCTAssertNil(try catalog.original(sha256: Self.uniqueHash(5)), "nothing of a failed batch is kept", file: file, line: line)

        let url = #"http://127.0.0.1:9/a"b\c,{d} NULL.jpg"#
        let failed = Self.source(url, sha: nil, outcome: .failed)
        try catalog.transaction {
            try catalog.upsertSources([failed, Self.source("http://127.0.0.1:9/2.jpg", sha: Self.uniqueHash(2)), Self.source(url, sha: Self.uniqueHash(3))])
        }
        XCTAssertEqual(try catalog.source(url: url), Self.source(url, sha: Self.uniqueHash(3)), "the later record wins", file: file, line: line)
        try catalog.upsertSources([failed])
        XCTAssertEqual(try catalog.source(url: url), failed, "replaced, NULLs included", file: file, line: line)
        XCTAssertEqual(try catalog.countSources(), 2, file: file, line: line)
        try catalog.upsertSources([])
        catalog.close()
    }

    /// Batched reservations agree with `reservePath`: the first asker of a path (ignoring case)
    /// gets it, never over an original or another writer's reservation; this writer's own
    /// reservation for the same content is granted again.
    func checkBatchedPathReservations(file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try open(), second = try open()
        try first.insertOriginal(Self.original(1, path: "originals/d/Été.jpg"))
        XCTAssertTrue(try first.reservePath("originals/d/mine.jpg", for: Self.uniqueHash(5)), file: file, line: line)
        XCTAssertTrue(try second.reservePath("originals/d/theirs.jpg", for: Self.uniqueHash(6)), file: file, line: line)
        let wanted = [
            PathReservation(path: "originals/d/été.JPG", sha256: Self.uniqueHash(2)),
            PathReservation(path: "originals/d/new.jpg", sha256: Self.uniqueHash(2)),
            PathReservation(path: "originals/d/NEW.jpg", sha256: Self.uniqueHash(3)),
            PathReservation(path: "originals/d/MINE.jpg", sha256: Self.uniqueHash(5)),
            PathReservation(path: "originals/d/mine.jpg", sha256: Self.uniqueHash(4)),
            PathReservation(path: #"originals/d/q"u\o,te.jpg"#, sha256: Self.uniqueHash(4)),
        ]
        let theirs = PathReservation(path: "originals/d/theirs.jpg", sha256: Self.uniqueHash(7))
        var expected: Set<PathReservation> = [wanted[1], wanted[3], wanted[5]]
        if first is SQLiteCatalog {
            // One writer per library: no other connection's reservation exists to refuse.
            expected.insert(theirs)
        }
        XCTAssertEqual(try first.reservePaths(wanted + [theirs]), expected, file: file, line: line)
        XCTAssertEqual(try first.reservePaths([]), [], file: file, line: line)
        XCTAssertFalse(try first.reservePath("originals/d/New.jpg", for: Self.uniqueHash(8)), "held once granted", file: file, line: line)
        try first.releaseReservations()
        let again = PathReservation(path: "originals/d/new.jpg", sha256: Self.uniqueHash(8))
        XCTAssertEqual(try first.reservePaths([again]), [again], "free once released", file: file, line: line)
        try first.releaseReservations()
        try second.releaseReservations()
        first.close()
        second.close()
    }

    /// Batched lookups: only the URLs known, any number of them, URLs with quotes and backslashes.
    func checkBatchedSourceLookups(file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try open()
        try catalog.insertOriginal(Self.original(1))
        let odd = #"http://127.0.0.1:9/a"b\c,d{e}.jpg"#
        let known = (0..<600).map { "http://127.0.0.1:9/\($0).jpg" } + [odd]
        try catalog.transaction { for url in known { try catalog.upsertSource(Self.source(url, sha: Self.uniqueHash(1))) } }
        let found = try catalog.sources(urls: known + ["http://127.0.0.1:9/unknown.jpg"])
        XCTAssertEqual(found.count, known.count, file: file, line: line)
        XCTAssertEqual(found[odd]?.url, odd, file: file, line: line)
        XCTAssertNil(found["http://127.0.0.1:9/unknown.jpg"], file: file, line: line)
        XCTAssertEqual(try catalog.sources(urls: []), [:], file: file, line: line)
        catalog.close()
    }
}

/// Answers gathered from threads.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var byRound: [Int: [Bool]] = [:]
    private var errors: [String] = []

    func add(round: Int, _ answer: Bool) {
        lock.lock()
        byRound[round, default: []].append(answer)
        lock.unlock()
    }

    func fail(_ message: String) {
        lock.lock()
        errors.append(message)
        lock.unlock()
    }

    func answers(round: Int) -> [Bool] {
        lock.lock()
        defer { lock.unlock() }
        return byRound[round] ?? []
    }

    var failures: [String] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}

/// Hands a non-Sendable value to a thread that is its only user meanwhile.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
