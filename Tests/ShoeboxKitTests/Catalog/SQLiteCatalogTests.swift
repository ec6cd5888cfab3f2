import Foundation
import XCTest
@testable import ShoeboxKit

final class SQLiteCatalogTests: XCTestCase {
    private var folder = ""
    private var catalogPath: String { folder + "/catalog.sqlite" }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "catalog-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func original(_ n: Int, path: String? = nil) -> OriginalRecord {
        OriginalRecord(
            sha256: String(repeating: String(n % 10), count: 64), path: path ?? "originals/2024/05/0\(n % 10)/IMG_\(n).jpg",
            bytes: Int64(1000 + n), contentType: "image/jpeg", width: 4000, height: 3000,
            takenAt: "2024:05:01 12:00:0\(n % 10)", datedBy: .exif, make: "Canon", model: "EOS \(n)",
            gpsLatitude: 48.858_370_123, gpsLongitude: -2.294_481_987, gpsAltitude: 35.25,
            orientation: 6, addedAt: "2026-11-30T01:00:00Z")
    }

    private func hash(_ n: Int) -> String { String(repeating: String(n % 10), count: 64) }

    private func source(_ url: String, sha: String?, outcome: FetchOutcome = .stored) -> SourceRecord {
        SourceRecord(
            url: url, finalURL: url + "?final", sha256: sha, etag: "\"e-\(url.count)\"",
            lastModified: "Wed, 01 May 2024 10:00:00 GMT", httpStatus: 200, fetchedAt: "2026-11-30T01:02:03Z",
            outcome: outcome, reason: outcome.isSuccess ? nil : "HTTP 404")
    }

    private func thumbnail(_ sha: String, size: String) -> ThumbnailRecord {
        ThumbnailRecord(
            originalSHA256: sha, size: size, path: "thumbnails/\(size)/\(sha.prefix(2))/\(sha).jpg", format: "jpeg",
            width: 256, height: 192, bytes: 12_345, createdAt: "2026-11-30T01:05:00Z", settings: "jpeg q80 inside stripped r2")
    }

    // MARK: Opening and schema

    func testNewCatalogIsCreatedInWALModeWithSchemaVersion() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1))
        let header = try XCTUnwrap(FileManager.default.contents(atPath: catalogPath))
        XCTAssertEqual(header.prefix(16), Data("SQLite format 3\0".utf8))
        XCTAssertEqual(header[18], 2, "file format write version 2 means WAL")
        XCTAssertTrue(FileManager.default.fileExists(atPath: catalogPath + "-wal"))
        let raw = try SQLiteConnection(path: catalogPath, readOnly: true)
        let version = try raw.query("SELECT value FROM meta WHERE key='schema_version'") { $0.string(0) }
        XCTAssertEqual(version, ["\(SQLiteCatalog.schemaVersion)"])
        let indexes = try raw.query("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='sources'") {
            $0.string(0) ?? ""
        }
        XCTAssertTrue(indexes.contains("sources_sha256"))
    }

    func testAVersion3CatalogGetsItsHistoryFromItsSourcesAndAReaderOfOneFallsBackToThem() throws {
        let made = try SQLiteCatalog(path: catalogPath)
        try made.insertOriginal(original(1))
        try made.upsertSource(source("http://a/1.jpg", sha: hash(1)))
        made.close()
        // Back to version 3: no history table, no lens.
        let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
        try raw.execute("DROP TABLE source_versions")
        try raw.execute("DROP INDEX originals_lens_unknown")
        try raw.execute("ALTER TABLE originals DROP COLUMN lens")
        try raw.execute("ALTER TABLE originals DROP COLUMN exposure")
        try raw.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
        raw.close()
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertEqual(try reader.sourceVersions(sha256: hash(1)).map(\.url), ["http://a/1.jpg"], "a reader of version 3 reads sources")
        reader.close()
        let writer = try SQLiteCatalog(path: catalogPath)
        let versions = try writer.sourceVersions(url: "http://a/1.jpg")
        XCTAssertEqual(versions.map(\.sha256), [hash(1)])
        XCTAssertEqual(versions.first?.firstFetchedAt, source("http://a/1.jpg", sha: hash(1)).fetchedAt)
        writer.close()
        let check = try SQLiteConnection(path: catalogPath, readOnly: true)
        XCTAssertEqual(try check.query("SELECT value FROM meta WHERE key = 'schema_version'") { $0.string(0) }, ["\(CatalogSchema.version)"])
        check.close()
    }

    /// Version 5 records lenses: originals catalogued before are "not known" (nil, not ""),
    /// for a reader of the old catalog and after a writer's upgrade; new ones are recorded.
    func testAVersion4CatalogHasItsLensesNotKnownAndAWriterRecordsNewOnes() throws {
        let made = try SQLiteCatalog(path: catalogPath)
        var before = original(1)
        before.lens = nil
        try made.insertOriginal(before)
        try made.upsertSource(source("http://a/1.jpg", sha: hash(1)))
        made.close()
        let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
        try raw.execute("DELETE FROM sources")  // left in the history table only
        try raw.execute("DROP INDEX originals_lens_unknown")
        try raw.execute("ALTER TABLE originals DROP COLUMN lens")
        try raw.execute("ALTER TABLE originals DROP COLUMN exposure")
        try raw.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
        raw.close()
        var lensQuery = OriginalQuery()
        lensQuery.lens = "EF"
        func listed(_ catalog: Catalog, _ query: OriginalQuery) throws -> [String] {
            var paths: [String] = []
            try catalog.originals(matching: query, limit: nil) { paths.append($0.path); return true }
            return paths
        }
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertNil(try reader.original(sha256: hash(1))?.lens)
        XCTAssertEqual(try listed(reader, lensQuery), [], "a reader of version 4 matches no lens")
        XCTAssertEqual(try reader.countOriginals(matching: lensQuery.lensNotJudged!, upTo: 10), 1)
        XCTAssertEqual(try reader.sourceVersions(sha256: hash(1)).map(\.url), ["http://a/1.jpg"], "a reader of version 4 reads its history table")
        reader.close()
        let writer = try SQLiteCatalog(path: catalogPath)
        XCTAssertNil(try writer.original(sha256: hash(1))?.lens, "not known after the upgrade")
        var new = original(2)
        new.lens = "EF100mm f/2.8L Macro IS USM"
        var none = original(3)
        none.lens = ""
        try writer.insertOriginal(new)
        try writer.insertOriginal(none)
        XCTAssertEqual(try listed(writer, lensQuery), [new.path])
        XCTAssertEqual(try writer.countOriginals(matching: lensQuery.lensNotJudged!, upTo: 10), 1)
        XCTAssertEqual(try writer.original(sha256: hash(3))?.lens, "", "no lens named: known, empty")
        writer.close()
        let check = try SQLiteConnection(path: catalogPath, readOnly: true)
        XCTAssertEqual(try check.query("SELECT value FROM meta WHERE key = 'schema_version'") { $0.string(0) }, ["\(CatalogSchema.version)"])
        XCTAssertEqual(try check.query("EXPLAIN QUERY PLAN SELECT count(*) FROM originals WHERE lens IS NULL") { $0.string(3) ?? "" }
            .joined(separator: ";").contains("originals_lens_unknown"), true, "the unknown ones are found by their index")
        check.close()
    }

    /// Version 6 records exposures: originals catalogued before have theirs "not known" (nil),
    /// for a reader of the old catalog and after a writer's upgrade, until recordMetadata fills
    /// them in (a known value is kept); new ones are recorded, "" when the file names none.
    func testAVersion5CatalogHasItsExposuresNotKnownUntilRecorded() throws {
        let made = try SQLiteCatalog(path: catalogPath)
        var before = original(1)
        before.lens = "EF50mm f/1.8 STM"
        try made.insertOriginal(before)
        made.close()
        let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
        try raw.execute("ALTER TABLE originals DROP COLUMN exposure")
        try raw.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
        raw.close()
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertNil(try reader.original(sha256: hash(1))?.exposure, "a reader of version 5")
        XCTAssertEqual(try reader.original(sha256: hash(1))?.lens, "EF50mm f/1.8 STM")
        reader.close()
        let writer = try SQLiteCatalog(path: catalogPath)
        XCTAssertNil(try writer.original(sha256: hash(1))?.exposure, "not known after the upgrade")
        try writer.recordMetadata(lens: "other", exposure: "t=0.004 f=4 iso=200 fl=50", sha256: hash(1))
        let recorded = try XCTUnwrap(try writer.original(sha256: hash(1)))
        XCTAssertEqual(recorded.lens, "EF50mm f/1.8 STM", "a known lens is kept")
        XCTAssertEqual(recorded.exposureValues, Exposure(time: 0.004, fNumber: 4, iso: 200, focalLength: 50))
        XCTAssertEqual(recorded.exposureValues?.text, "1/250 s · f/4 · ISO 200 · 50 mm")
        try writer.recordMetadata(lens: "x", exposure: "t=1", sha256: hash(1))
        XCTAssertEqual(try writer.original(sha256: hash(1))?.exposure, "t=0.004 f=4 iso=200 fl=50", "a known exposure is kept")
        var none = original(2)
        none.exposure = ""
        try writer.insertOriginal(none)
        XCTAssertEqual(try writer.original(sha256: hash(2))?.exposure, "", "none named: known, empty")
        XCTAssertNil(try writer.original(sha256: hash(2))?.exposureValues)
        writer.close()
    }

    func testExposureTextIsWhatPhotographersWrite() {
        XCTAssertEqual(Exposure(time: 1.0 / 3200, fNumber: 2.8, iso: 6400, focalLength: 105).text, "1/3200 s · f/2.8 · ISO 6400 · 105 mm")
        XCTAssertEqual(Exposure(time: 2.5, fNumber: 11).text, "2.5 s · f/11")
        XCTAssertEqual(Exposure(time: 0.3).text, "0.3 s")
        XCTAssertEqual(Exposure(time: 0.0667).text, "1/15 s")
        XCTAssertEqual(Exposure(focalLength: 6.86).text, "6.86 mm")
        XCTAssertNil(Exposure(time: .nan, fNumber: -1, iso: 0, focalLength: .infinity).text, "nonsense is no exposure")
        let odd = Exposure(catalogText: "t=abc f=2 iso=-3 zz=1 fl")
        XCTAssertEqual(odd, Exposure(fNumber: 2))
        XCTAssertEqual(Exposure(catalogText: Exposure(time: 1.0 / 3200, fNumber: 2.8, iso: 6400, focalLength: 105).catalogText),
                       Exposure(time: 1.0 / 3200, fNumber: 2.8, iso: 6400, focalLength: 105))
    }

    func testDataSurvivesCloseAndReopen() throws {
        var catalog: SQLiteCatalog? = try SQLiteCatalog(path: catalogPath)
        try catalog?.insertOriginal(original(1))
        try catalog?.upsertSource(source("http://a/1.jpg", sha: hash(1)))
        catalog?.close()
        catalog = nil
        let reopened = try SQLiteCatalog(path: catalogPath)
        XCTAssertEqual(try reopened.original(sha256: hash(1)), original(1))
        XCTAssertEqual(try reopened.source(url: "http://a/1.jpg"), source("http://a/1.jpg", sha: hash(1)))
    }

    func testReadOnlyCatalogReadsButRefusesWrites() throws {
        let writer = try SQLiteCatalog(path: catalogPath)
        try writer.insertOriginal(original(1))
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertEqual(try reader.countOriginals(), 1)
        XCTAssertThrowsError(try reader.insertOriginal(original(2))) { error in
            guard case CatalogError.unwritable(let path, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(path, catalogPath)
        }
    }

    func testReadOnlyOpenOfMissingFileIsUnreadableAndCreatesNothing() {
        XCTAssertThrowsError(try SQLiteCatalog(path: catalogPath, readOnly: true)) { error in
            guard case CatalogError.unreadable = error else { return XCTFail("got \(error)") }
            XCTAssertTrue("\(error)".contains(catalogPath))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: catalogPath))
    }

    func testEmptyFileLeftByAnInterruptedCreationReadsAsAnEmptyCatalog() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: catalogPath, contents: Data()))
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertEqual(try reader.countOriginals(), 0)
        XCTAssertEqual(try reader.allSources(), [])
        XCTAssertEqual(try reader.allThumbnails(), [])
        XCTAssertNil(try reader.source(url: "http://a/"))
        reader.close()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: catalogPath)).count, 0, "a reader writes nothing")
        let writer = try SQLiteCatalog(path: catalogPath)
        try writer.insertOriginal(original(1))
        XCTAssertEqual(try writer.countOriginals(), 1)
    }

    func testOpenInMissingFolderIsUnwritable() {
        let path = folder + "/no/such/folder/catalog.sqlite"
        XCTAssertThrowsError(try SQLiteCatalog(path: path)) { error in
            guard case CatalogError.unwritable(let errorPath, let detail) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(errorPath, path)
            XCTAssertTrue(detail.contains("does not exist"), detail)
        }
    }

    func testFolderInPlaceOfCatalogIsUnreadable() throws {
        try FileManager.default.createDirectory(atPath: catalogPath, withIntermediateDirectories: false)
        XCTAssertThrowsError(try SQLiteCatalog(path: catalogPath)) { error in
            guard case CatalogError.unreadable = error else { return XCTFail("got \(error)") }
        }
    }

    func testGarbageFileIsReportedCorruptWithRemedyAndLeftUntouched() throws {
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        XCTAssertTrue(FileManager.default.createFile(atPath: catalogPath, contents: garbage))
        XCTAssertThrowsError(try SQLiteCatalog(path: catalogPath)) { error in
            guard case CatalogError.corrupt = error else { return XCTFail("got \(error)") }
            let message = "\(error)"
            XCTAssertTrue(message.contains(catalogPath), message)
            XCTAssertTrue(message.contains("shoebox reindex --library \(folder)"), message)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: catalogPath), garbage)
    }

    func testDamagedPageFailsQuickCheckAsCorrupt() throws {
        do {
            let catalog = try SQLiteCatalog(path: catalogPath)
            try catalog.transaction {
                for n in 0..<400 {
                    try catalog.upsertSource(source("http://example.test/\(n)/" + String(repeating: "x", count: 200), sha: nil, outcome: .failed))
                }
            }
            catalog.close()
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: catalogPath + "-wal"), "close checkpoints the WAL")
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: catalogPath))
        XCTAssertGreaterThan(bytes.count, 4096 * 8)
        for offset in (4096 * 4)..<(4096 * 6) { bytes[offset] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: catalogPath))
        XCTAssertThrowsError(try SQLiteCatalog(path: catalogPath, readOnly: true)) { error in
            guard case CatalogError.corrupt = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(FileManager.default.contents(atPath: catalogPath), bytes, "never repaired or replaced")
        // Without the check at opening (a reader that looks rows up), the damage is met on reading.
        for offset in (4096 * 6)..<bytes.count { bytes[offset] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: catalogPath))
        let unchecked = try SQLiteCatalog(path: catalogPath, readOnly: true, checkIntegrity: false)
        XCTAssertThrowsError(try unchecked.allSources()) { error in
            guard case CatalogError.corrupt = error else { return XCTFail("got \(error)") }
        }
    }

    func testNewerSchemaIsRefused() throws {
        _ = try SQLiteCatalog(path: catalogPath)
        do {
            let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
            try raw.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        }
        XCTAssertThrowsError(try SQLiteCatalog(path: catalogPath)) { error in
            XCTAssertEqual(error as? CatalogError, .schemaTooNew(path: catalogPath, found: 99, supported: SQLiteCatalog.schemaVersion))
            XCTAssertTrue("\(error)".contains("upgrade shoebox"))
        }
    }

    func testVersion1CatalogIsReadAsIsAndUpgradedByAWriter() throws {
        do {
            let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
            for statement in CatalogSchema.createStatements where !statement.contains("originals_folded_path") && statement != CatalogSchema.lensUnknownIndex {
                try raw.execute(statement.replacingOccurrences(of: ",\n    folded_path TEXT,\n    lens TEXT,\n    exposure TEXT", with: "")
                    .replacingOccurrences(of: ",\n    dated_by TEXT", with: "")
                    .replacingOccurrences(of: ",\n    settings TEXT", with: ""))
            }
            XCTAssertEqual(try raw.query("SELECT count(*) FROM pragma_table_info('originals') WHERE name = 'dated_by'") { $0.int(0) }, [0])
            try raw.run("INSERT INTO meta (key, value) VALUES ('schema_version', '1')")
            try raw.run("""
                INSERT INTO originals (sha256, path, bytes, content_type, taken_at, added_at)
                VALUES ('\(hash(1))', 'originals/old.jpg', 5, 'image/jpeg', '2020:01:02 03:04:05', 't')
                """)
        }
        func version() throws -> [String?] {
            try SQLiteConnection(path: catalogPath, readOnly: true).query("SELECT value FROM meta WHERE key = 'schema_version'") { $0.string(0) }
        }
        try SQLiteConnection(path: catalogPath, readOnly: false).run("""
            INSERT INTO thumbnails (path, original_sha256, size, format, width, height, bytes, created_at)
            VALUES ('thumbnails/256/old.jpg.jpg', '\(hash(1))', '256', 'jpeg', 256, 192, 9, 't')
            """)
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertEqual(try reader.allOriginals().map(\.takenAt), ["2020:01:02 03:04:05"])
        XCTAssertEqual(try reader.allThumbnails().map(\.settings), [nil])
        XCTAssertNil(try reader.original(path: "originals/old.jpg")?.datedBy)
        reader.close()
        XCTAssertEqual(try version(), ["1"], "a reader changes nothing")

        let writer = try SQLiteCatalog(path: catalogPath)
        XCTAssertEqual(try version(), ["\(SQLiteCatalog.schemaVersion)"])
        // The ASCII-only index of version 2 is gone; the folded path's and `list`'s are there.
        XCTAssertEqual(Set(try SQLiteConnection(path: catalogPath, readOnly: true)
            .query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'originals' AND sql IS NOT NULL") { $0.string(0) }),
            ["originals_folded_path", "originals_taken_at", "originals_added_at", "originals_make", "originals_model", "originals_position",
             "originals_lens_unknown"])
        XCTAssertTrue(try writer.hasOriginal(pathIgnoringCase: "ORIGINALS/OLD.JPG"), "rows of version 1 get their folded path")
        XCTAssertNil(try writer.original(sha256: hash(1))?.datedBy, "unknown for rows written by version 1")
        try writer.insertOriginal(original(2))
        XCTAssertEqual(try writer.allThumbnails().map(\.settings), [nil], "thumbs remakes these")
        try writer.upsertThumbnail(thumbnail(hash(2), size: "512"))
        writer.close()
        XCTAssertEqual(try SQLiteCatalog(path: catalogPath, readOnly: true).thumbnails(sha256: hash(2)), [thumbnail(hash(2), size: "512")])
        XCTAssertEqual(try SQLiteCatalog(path: catalogPath, readOnly: true).original(sha256: hash(2)), original(2))
    }

    func testVersion2CatalogIsReadAsIsAndAWriterFillsFoldedPaths() throws {
        let names = (0..<25_000).map { "originals/2020/01/02/\u{C9}t\u{E9}-\($0).jpg" }  // more than one slice
        do {
            let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
            for statement in CatalogSchema.createStatements where !statement.contains("originals_folded_path") && statement != CatalogSchema.lensUnknownIndex {
                try raw.execute(statement.replacingOccurrences(of: ",\n    folded_path TEXT,\n    lens TEXT,\n    exposure TEXT", with: ""))
            }
            XCTAssertEqual(try raw.query("SELECT count(*) FROM pragma_table_info('originals') WHERE name = 'folded_path'") { $0.int(0) }, [0])
            try raw.execute("CREATE INDEX originals_path_nocase ON originals(path COLLATE NOCASE)")
            try raw.run("INSERT INTO meta (key, value) VALUES ('schema_version', '2')")
            try raw.execute("BEGIN")
            for (index, path) in names.enumerated() {
                try raw.run(
                    "INSERT INTO originals (sha256, path, bytes, content_type, added_at, dated_by) VALUES (?, ?, 5, 'image/jpeg', 't', 'exif')",
                    [.text(String(format: "%064x", index)), .text(path)])
            }
            try raw.execute("COMMIT")
        }
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertEqual(try reader.original(path: names[7])?.datedBy, .exif, "a reader of version 2 sees its columns")
        reader.close()

        let writer = try SQLiteCatalog(path: catalogPath)
        let raw = try SQLiteConnection(path: catalogPath, readOnly: true)
        XCTAssertEqual(try raw.query("SELECT value FROM meta WHERE key = 'schema_version'") { $0.string(0) }, [String(CatalogSchema.version)])
        XCTAssertEqual(try raw.query("SELECT count(*) FROM originals WHERE folded_path IS NULL") { $0.int(0) }, [0])
        XCTAssertEqual(try raw.query("SELECT folded_path FROM originals WHERE path = ?", [.text(names[24_999])]) { $0.string(0) },
                       ["originals/2020/01/02/\u{E9}t\u{E9}-24999.jpg"])
        XCTAssertEqual(try raw.query("SELECT count(*) FROM sqlite_master WHERE name = 'originals_path_nocase'") { $0.int(0) }, [0])
        XCTAssertTrue(try writer.hasOriginal(pathIgnoringCase: "originals/2020/01/02/\u{E9}T\u{C9}-24999.JPG"))
        XCTAssertFalse(try writer.hasOriginal(pathIgnoringCase: "originals/2020/01/02/\u{E9}t\u{E9}-25000.jpg"))
    }

    func testForeignDatabaseIsNotTakenOver() throws {
        do {
            let raw = try SQLiteConnection(path: catalogPath, readOnly: false)
            try raw.execute("CREATE TABLE photos (id INTEGER)")
        }
        XCTAssertThrowsError(try SQLiteCatalog(path: catalogPath)) { error in
            guard case CatalogError.corrupt = error else { return XCTFail("got \(error)") }
        }
    }

    // MARK: Originals

    func testOriginalRoundTripsEveryFieldBySHAAndByPath() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        let full = original(1)
        let sparse = OriginalRecord(sha256: hash(2), path: "originals/x.png", bytes: 5, contentType: "image/png", addedAt: "t")
        try catalog.insertOriginal(full)
        try catalog.insertOriginal(sparse)
        XCTAssertEqual(try catalog.original(sha256: hash(1)), full)
        XCTAssertEqual(try catalog.original(path: full.path), full)
        XCTAssertEqual(try catalog.original(sha256: hash(2)), sparse)
        XCTAssertEqual(try catalog.original(path: "originals/x.png"), sparse)
        XCTAssertNil(try catalog.original(sha256: hash(3)))
        XCTAssertNil(try catalog.original(path: "originals/none.jpg"))
        XCTAssertTrue(try catalog.hasOriginal(pathIgnoringCase: full.path.uppercased()))
        XCTAssertTrue(try catalog.hasOriginal(pathIgnoringCase: "originals/X.PNG"))
        XCTAssertFalse(try catalog.hasOriginal(pathIgnoringCase: "originals/x.png2"))
    }

    func testPathsDifferingByTheCaseOfLettersOutsideASCIIAreFound() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1, path: "originals/\u{C9}t\u{E9}/\u{416}.jpg"))  // Été/Ж.jpg
        XCTAssertTrue(try catalog.hasOriginal(pathIgnoringCase: "originals/\u{E9}t\u{E9}/\u{436}.JPG"))  // été/ж.JPG
        XCTAssertTrue(try catalog.hasOriginal(pathIgnoringCase: "originals/E\u{301}te\u{301}/\u{416}.jpg"), "decomposed")
        XCTAssertFalse(try catalog.hasOriginal(pathIgnoringCase: "originals/ete/\u{416}.jpg"), "accents still count")
    }

    func testInsertOriginalRejectsKnownHashOrPath() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1))
        XCTAssertThrowsError(try catalog.insertOriginal(original(1, path: "originals/other.jpg"))) { error in
            guard case CatalogError.constraint = error else { return XCTFail("got \(error)") }
        }
        XCTAssertThrowsError(try catalog.insertOriginal(original(2, path: original(1).path))) { error in
            guard case CatalogError.constraint = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(try catalog.countOriginals(), 1)
    }

    func testAllOriginalsAreInPathOrderAndCounted() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        XCTAssertEqual(try catalog.countOriginals(), 0)
        XCTAssertEqual(try catalog.allOriginals(), [])
        let records = [original(3, path: "originals/c.jpg"), original(1, path: "originals/a.jpg"), original(2, path: "originals/b.jpg")]
        for record in records { try catalog.insertOriginal(record) }
        XCTAssertEqual(try catalog.allOriginals().map(\.path), ["originals/a.jpg", "originals/b.jpg", "originals/c.jpg"])
        XCTAssertEqual(try catalog.countOriginals(), 3)
    }

    // MARK: Sources

    func testUpsertSourceInsertsThenReplacesTheRowForItsURL() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1))
        XCTAssertNil(try catalog.source(url: "http://a/1.jpg"))
        XCTAssertFalse(try catalog.hasSources())
        let failed = source("http://a/1.jpg", sha: nil, outcome: .failed)
        try catalog.upsertSource(failed)
        XCTAssertTrue(try catalog.hasSources())
        XCTAssertEqual(try catalog.source(url: "http://a/1.jpg"), failed)
        let stored = source("http://a/1.jpg", sha: hash(1))
        try catalog.upsertSource(stored)
        XCTAssertEqual(try catalog.source(url: "http://a/1.jpg"), stored)
        XCTAssertEqual(try catalog.countSources(), 1)
    }

    func testSourcesBySHAAndAllSources() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1))
        try catalog.insertOriginal(original(2))
        let rows = [
            source("http://b/dup.jpg", sha: hash(1), outcome: .duplicate), source("http://a/1.jpg", sha: hash(1)),
            source("http://c/2.jpg", sha: hash(2)), source("http://d/404", sha: nil, outcome: .failed),
        ]
        for row in rows { try catalog.upsertSource(row) }
        XCTAssertEqual(try catalog.sources(sha256: hash(1)).map(\.url), ["http://a/1.jpg", "http://b/dup.jpg"])
        XCTAssertEqual(try catalog.sources(sha256: hash(2)), [rows[2]])
        XCTAssertEqual(try catalog.sources(sha256: hash(3)), [])
        XCTAssertEqual(try catalog.allSources().map(\.url), ["http://a/1.jpg", "http://b/dup.jpg", "http://c/2.jpg", "http://d/404"])
    }

    func testSourceNamingAnUnknownOriginalIsRefused() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        XCTAssertThrowsError(try catalog.upsertSource(source("http://a/1.jpg", sha: hash(7)))) { error in
            guard case CatalogError.constraint = error else { return XCTFail("got \(error)") }
        }
        XCTAssertNil(try catalog.source(url: "http://a/1.jpg"))
    }

    func testSourceMayPrecedeItsOriginalInsideATransaction() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.transaction {
            try catalog.upsertSource(source("http://a/1.jpg", sha: hash(1)))
            try catalog.insertOriginal(original(1))
        }
        XCTAssertEqual(try catalog.sources(sha256: hash(1)).count, 1)
    }

    // MARK: Thumbnails

    func testThumbnailsUpsertListAndRemove() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1))
        try catalog.insertOriginal(original(2))
        let small = thumbnail(hash(1), size: "256")
        let large = thumbnail(hash(1), size: "1024")
        let other = thumbnail(hash(2), size: "256")
        for record in [small, large, other] { try catalog.upsertThumbnail(record) }
        XCTAssertEqual(try catalog.thumbnails(sha256: hash(1)), [large, small])
        XCTAssertEqual(try catalog.allThumbnails().count, 3)
        var remade = small
        remade.bytes = 999
        remade.width = 200
        try catalog.upsertThumbnail(remade)
        XCTAssertEqual(try catalog.thumbnails(sha256: hash(1)), [large, remade])
        try catalog.removeThumbnail(path: large.path)
        XCTAssertEqual(try catalog.thumbnails(sha256: hash(1)), [remade])
        XCTAssertEqual(try catalog.allThumbnails(), [remade, other].sorted { $0.path < $1.path })
        try catalog.removeThumbnail(path: "thumbnails/none.jpg")
        XCTAssertEqual(try catalog.allThumbnails().count, 2)
    }

    func testThumbnailOfUnknownOriginalIsRefused() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        XCTAssertThrowsError(try catalog.upsertThumbnail(thumbnail(hash(4), size: "256")))
        XCTAssertEqual(try catalog.allThumbnails(), [])
    }

    // MARK: Transactions

    func testTransactionCommitsAllAndReturnsTheBodyValue() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        let value = try catalog.transaction { () -> Int in
            try catalog.insertOriginal(original(1))
            try catalog.insertOriginal(original(2))
            return try catalog.countOriginals()
        }
        XCTAssertEqual(value, 2)
        let other = try SQLiteCatalog(path: catalogPath, readOnly: true)
        XCTAssertEqual(try other.countOriginals(), 2)
    }

    func testThrowingBodyRollsEverythingBack() throws {
        struct Stop: Error {}
        let catalog = try SQLiteCatalog(path: catalogPath)
        XCTAssertThrowsError(try catalog.transaction {
            try catalog.insertOriginal(original(1))
            throw Stop()
        }) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(try catalog.countOriginals(), 0)
        try catalog.insertOriginal(original(1))  // the connection is usable again
        XCTAssertEqual(try catalog.countOriginals(), 1)
    }

    func testFailedNestedTransactionRollsBackOnlyItsOwnWrites() throws {
        struct Stop: Error {}
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.transaction {
            try catalog.insertOriginal(original(1))
            do {
                try catalog.transaction {
                    try catalog.insertOriginal(original(2))
                    try catalog.transaction { try catalog.insertOriginal(original(3)) }
                    throw Stop()
                }
                XCTFail("inner transaction should have thrown")
            } catch is Stop {}
            try catalog.transaction { try catalog.insertOriginal(original(4)) }
        }
        XCTAssertEqual(try catalog.allOriginals().map(\.sha256), [hash(1), hash(4)])
    }

    func testOuterFailureUndoesCommittedInnerTransactions() throws {
        struct Stop: Error {}
        let catalog = try SQLiteCatalog(path: catalogPath)
        XCTAssertThrowsError(try catalog.transaction {
            try catalog.transaction { try catalog.insertOriginal(original(1)) }
            throw Stop()
        })
        XCTAssertEqual(try catalog.countOriginals(), 0)
    }

    func testForeignKeyViolationAtCommitRollsBackAndThrows() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        XCTAssertThrowsError(try catalog.transaction {
            try catalog.insertOriginal(original(1))
            try catalog.upsertSource(source("http://a/x.jpg", sha: hash(9)))
        }) { error in
            guard case CatalogError.constraint = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(try catalog.countOriginals(), 0)
        try catalog.transaction { try catalog.insertOriginal(original(1)) }
        XCTAssertEqual(try catalog.countOriginals(), 1)
    }

    func testReaderSeesOnlyCommittedData() throws {
        let writer = try SQLiteCatalog(path: catalogPath)
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        try writer.transaction {
            try writer.insertOriginal(original(1))
            XCTAssertEqual(try reader.countOriginals(), 0)
        }
        XCTAssertEqual(try reader.countOriginals(), 1)
    }

    func testOneInstanceIsSafeAcrossThreads() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        let failures = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for n in 0..<25 {
                let id = worker * 100 + n
                do {
                    try catalog.transaction {
                        let record = OriginalRecord(
                            sha256: String(format: "%064d", id), path: "originals/\(id).jpg", bytes: Int64(id),
                            contentType: "image/jpeg", addedAt: "t")
                        try catalog.insertOriginal(record)
                        try catalog.upsertSource(SourceRecord(
                            url: "http://t/\(id)", sha256: record.sha256, fetchedAt: "t", outcome: .stored))
                    }
                    _ = try catalog.original(path: "originals/\(id).jpg")
                } catch {
                    failures.increment()
                }
            }
        }
        XCTAssertEqual(failures.value, 0)
        XCTAssertEqual(try catalog.countOriginals(), 200)
        XCTAssertEqual(try catalog.countSources(), 200)
    }

    // MARK: The races the protocol states

    func testAPathIsReservedOnceIgnoringCaseAndNeverOverAnOriginal() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1, path: "originals/2024/05/01/Été.jpg"))
        XCTAssertFalse(try catalog.reservePath("originals/2024/05/01/été.JPG", for: hash(2)), "an original holds it")
        XCTAssertTrue(try catalog.reservePath("originals/2024/05/01/b.jpg", for: hash(2)))
        XCTAssertTrue(try catalog.reservePath("originals/2024/05/01/B.JPG", for: hash(2)), "the same content may ask again")
        XCTAssertFalse(try catalog.reservePath("originals/2024/05/01/B.jpg", for: hash(3)), "reserved for other content")
        try catalog.releaseReservations()
        XCTAssertTrue(try catalog.reservePath("originals/2024/05/01/b.jpg", for: hash(3)), "free once released")
    }

    func testInsertIfAbsentReportsAnOriginalAlreadyThereAndChangesNothing() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        XCTAssertTrue(try catalog.insertOriginalIfAbsent(original(1)))
        var again = original(1)
        again.bytes = 5
        XCTAssertFalse(try catalog.insertOriginalIfAbsent(again))
        XCTAssertEqual(try catalog.original(sha256: hash(1))?.bytes, original(1).bytes)
        XCTAssertThrowsError(try catalog.insertOriginalIfAbsent(original(2, path: original(1).path)), "a path conflict still fails")
    }

    func testOriginalsArePagedInPathOrder() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        for n in 0..<10 {
            var record = original(n, path: String(format: "originals/2024/05/01/%02d.jpg", 9 - n))
            record.sha256 = String(format: "%064d", n)
            try catalog.insertOriginal(record)
        }
        var paths: [String] = []
        var after: String?
        while true {
            let page = try catalog.originals(after: after, limit: 4)
            XCTAssertLessThanOrEqual(page.count, 4)
            guard let last = page.last else { break }
            paths += page.map(\.path)
            after = last.path
        }
        XCTAssertEqual(paths, (0..<10).map { String(format: "originals/2024/05/01/%02d.jpg", $0) })
    }

    func testSourcesAreLookedUpManyAtOnce() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        try catalog.insertOriginal(original(1))
        let known = (0..<300).map { "http://127.0.0.1:9/\($0).jpg" }
        try catalog.transaction { for url in known { try catalog.upsertSource(source(url, sha: hash(1))) } }
        let asked = known + ["http://127.0.0.1:9/unknown.jpg"]
        let found = try catalog.sources(urls: asked)
        XCTAssertEqual(found.count, 300, "every known URL, past one chunk of parameters")
        XCTAssertNil(found["http://127.0.0.1:9/unknown.jpg"])
        XCTAssertEqual(found["http://127.0.0.1:9/299.jpg"]?.sha256, hash(1))
    }

    /// The batch lookups read in a transaction of their own: none is left open (another
    /// connection's write is seen by the next batch), and inside a transaction they see its
    /// rows not yet committed.
    func testBatchedLookupsLeaveNoReadOpenAndSeeTheirTransactionsRows() throws {
        let catalog = try SQLiteCatalog(path: catalogPath)
        defer { catalog.close() }
        try catalog.insertOriginal(original(1))
        XCTAssertEqual(try catalog.originals(sha256s: [hash(1), hash(2)]).keys.sorted(), [hash(1)])
        XCTAssertFalse(catalog.connection.isInTransaction, "the read is over")
        let taken = PathReservation(path: original(1).path.uppercased(), sha256: hash(5))
        let free = PathReservation(path: "originals/2024/05/09/free.jpg", sha256: hash(6))
        XCTAssertEqual(try catalog.reservePaths([taken, free]), [free], "a path taken ignoring case is refused")
        XCTAssertFalse(catalog.connection.isInTransaction, "the read is over")
        try catalog.releaseReservations()

        let other = try SQLiteCatalog(path: catalogPath)
        try other.insertOriginal(original(2))
        other.close()
        XCTAssertEqual(try catalog.originals(sha256s: [hash(1), hash(2)]).keys.sorted(), [hash(1), hash(2)],
                       "a write made between two batches is seen")
        XCTAssertEqual(try catalog.reservePaths([PathReservation(path: original(2).path, sha256: hash(7))]), [])

        try catalog.transaction {
            try catalog.insertOriginal(original(3))
            XCTAssertEqual(try catalog.originals(sha256s: [hash(3)]).keys.sorted(), [hash(3)])
            XCTAssertEqual(try catalog.reservePaths([PathReservation(path: original(3).path, sha256: hash(8))]), [])
            XCTAssertTrue(catalog.connection.isInTransaction)
        }
        XCTAssertFalse(catalog.connection.isInTransaction)
        XCTAssertNotNil(try catalog.original(sha256: hash(3)), "the enclosing transaction committed")

        // A read-only catalog reads its batches the same way (BEGIN DEFERRED takes no write lock).
        let reader = try SQLiteCatalog(path: catalogPath, readOnly: true)
        defer { reader.close() }
        XCTAssertEqual(try reader.originals(sha256s: [hash(1), hash(3), hash(4)]).keys.sorted(), [hash(1), hash(3)])
        XCTAssertFalse(reader.connection.isInTransaction)
    }
}

/// A counter shared by test threads.
private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
