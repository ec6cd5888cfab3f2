import Foundation
import XCTest
@testable import ShoeboxKit

final class LibraryReindexerTests: XCTestCase {
    private var root = ""
    private var layout: LibraryLayout { LibraryLayout(root: root) }

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "reindex-tests-" + UUID().uuidString
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func reindex(force: Bool = false) throws -> ReindexReport {
        try LibraryReindexer(layout: layout, force: force, jobs: 2).run()
    }

    /// A library with originals, duplicate and failed sources, and thumbnails.
    private func makeLibrary() throws -> VerifyTestLibrary {
        let library = try VerifyTestLibrary(root: root)
        var records: [OriginalRecord] = []
        for n in 0..<5 {
            records.append(try library.store(VerifyTestLibrary.bytes(n), path: "originals/2024/05/0\(n + 1)/photo-\(n).jpg"))
        }
        try library.recordSource(url: "http://127.0.0.1:9/again.jpg", sha256: records[0].sha256, outcome: .duplicate)
        try library.recordSource(url: "http://127.0.0.1:9/gone.jpg", sha256: nil, outcome: .failed)
        try library.addThumbnail(for: records[1])
        try library.addThumbnail(for: records[2], size: "1024")
        return library
    }

    private func files(matching prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix(prefix) }
    }

    func testDeletedCatalogIsRebuiltWithTheSameDump() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        for suffix in ["", "-wal", "-shm"] { unlink(layout.catalog + suffix) }
        let report = try reindex()
        let after = try VerifyTestLibrary.dump(layout.catalog)
        XCTAssertEqual(after.0, before.0)
        XCTAssertEqual(after.1, before.1)
        XCTAssertEqual(after.2, before.2)
        XCTAssertEqual(report.originalsFromJournal, 5)
        XCTAssertEqual(report.originalsFromFiles, 0)
        XCTAssertEqual(report.sources, 7)
        XCTAssertEqual(report.thumbnails, 2)
        XCTAssertNil(report.previousCatalog)
        XCTAssertTrue(try LibraryVerifier(layout: layout).run().findings.isEmpty)
    }

    func testAFolderThatIsNoLibraryIsRefusedAndLeftAsItWas() throws {
        try FileManager.default.createDirectory(atPath: root + "/holiday", withIntermediateDirectories: true)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        XCTAssertThrowsError(try reindex(force: true)) { error in
            XCTAssertEqual(error as? VerifyError, .notALibrary(path: root))
            XCTAssertTrue("\(error)".contains("check the --library path"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root).sorted(), ["holiday", "notes.txt"])
    }

    func testHealthyCatalogIsKeptWithoutForce() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try Data(contentsOf: URL(fileURLWithPath: layout.catalog))
        XCTAssertThrowsError(try reindex()) { error in
            XCTAssertEqual(error as? VerifyError, .catalogHealthy(path: layout.catalog, originals: 5))
            XCTAssertTrue("\(error)".contains("--force"))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: layout.catalog)), before)
        XCTAssertEqual(try files(matching: "catalog.sqlite."), [])
    }

    func testForceRebuildsAndKeepsThePreviousFile() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        let report = try reindex(force: true)
        let kept = try XCTUnwrap(report.previousCatalog)
        XCTAssertTrue(kept.hasPrefix("catalog.sqlite.replaced-"), kept)
        XCTAssertEqual(try files(matching: "catalog.sqlite.replaced-").filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, [kept])
        XCTAssertEqual(try VerifyTestLibrary.dump(layout.absolute(kept)).0, before.0)
        XCTAssertEqual(try VerifyTestLibrary.dump(layout.catalog).0, before.0)
        XCTAssertEqual(try VerifyTestLibrary.dump(layout.catalog).1, before.1)

        // Again within the same second: the first kept file is kept too, under another name.
        let again = try XCTUnwrap(try reindex(force: true).previousCatalog)
        XCTAssertNotEqual(again, kept)
        XCTAssertEqual(try files(matching: "catalog.sqlite.replaced-").filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.count, 2)
        XCTAssertEqual(try VerifyTestLibrary.dump(layout.absolute(kept)).0, before.0)
    }

    func testAnOriginalMovedByHandIsFoundByItsBytesAndMadeReadOnly() throws {
        _ = try makeLibrary()
        let old = root + "/originals/2024/05/01/photo-0.jpg", moved = root + "/originals/2024/05/01/renamed.jpg"
        try FileManager.default.moveItem(atPath: old, toPath: moved)
        chmod(moved, 0o644)
        let report = try reindex(force: true)
        XCTAssertEqual(report.originalsFromJournal, 5)
        XCTAssertTrue(try VerifyTestLibrary.dump(layout.catalog).0.contains { $0.path == "originals/2024/05/01/renamed.jpg" })
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: moved)[.posixPermissions] as? Int, 0o444)
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings, [])
    }

    func testCorruptCatalogIsMovedAsideAndRebuilt() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        let garbage = Data(repeating: 0xEE, count: 4096)
        try garbage.write(to: URL(fileURLWithPath: layout.catalog))
        let report = try reindex()
        XCTAssertEqual(report.previousCatalogState, "corrupt")
        let kept = try XCTUnwrap(report.previousCatalog)
        XCTAssertTrue(kept.hasPrefix("catalog.sqlite.corrupt-"), kept)
        XCTAssertEqual(FileManager.default.contents(atPath: layout.absolute(kept)), garbage, "the corrupt file is kept as it was")
        let after = try VerifyTestLibrary.dump(layout.catalog)
        XCTAssertEqual(after.0, before.0)
        XCTAssertEqual(after.1, before.1)
        XCTAssertEqual(after.2, before.2)
    }

    func testFilesWithoutJournalEntriesAreRecordedFromThemselvesAndJournaled() throws {
        let folder = URL(fileURLWithPath: root + "-src")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = folder.appendingPathComponent("camera.jpg")
        try MetadataFixtures.makeImage(jpeg)
        try MetadataFixtures.writeTags([(jpeg, CameraTags())])
        try FileManager.default.createDirectory(atPath: root + "/originals/2024/05/01", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: jpeg.path, toPath: root + "/originals/2024/05/01/camera.jpg")

        let first = try reindex()
        XCTAssertEqual(first.originalsFromFiles, 1)
        let record = try XCTUnwrap(try VerifyTestLibrary.dump(layout.catalog).0.first)
        XCTAssertEqual(record.path, "originals/2024/05/01/camera.jpg")
        XCTAssertEqual(record.contentType, "image/jpeg")
        XCTAssertEqual(record.make, "Canon")
        XCTAssertEqual(record.model, "Canon EOS 5D Mark IV")
        XCTAssertEqual(record.takenAt, "2024:05:01 12:34:56")
        XCTAssertEqual(record.datedBy, .exif)
        XCTAssertEqual(try XCTUnwrap(record.gpsLatitude), 48.858370, accuracy: 1e-6)
        XCTAssertEqual(record.width, 64)
        XCTAssertEqual(try Journal.read(path: layout.journal), [.originalStored(record)])

        let second = try reindex(force: true)
        XCTAssertEqual(second.originalsFromJournal, 1)
        XCTAssertEqual(second.originalsFromFiles, 0)
        XCTAssertEqual(try VerifyTestLibrary.dump(layout.catalog).0, [record])
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings, [], "an adopted file is made read-only")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: root + "/originals/2024/05/01/camera.jpg")[.posixPermissions] as? Int, 0o444)
    }

    func testFileWithoutCaptureTimeIsDatedByItsModificationTime() throws {
        try FileManager.default.createDirectory(atPath: root + "/originals/2021/02/03", withIntermediateDirectories: true)
        let path = root + "/originals/2021/02/03/plain.jpg"
        try MetadataFixtures.makeImage(URL(fileURLWithPath: path))
        var times = [timespec(tv_sec: 1_612_345_678, tv_nsec: 0), timespec(tv_sec: 1_612_345_678, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)

        XCTAssertEqual(try reindex().originalsFromFiles, 1)
        let record = try XCTUnwrap(try VerifyTestLibrary.dump(layout.catalog).0.first)
        XCTAssertEqual(record.takenAt, Timestamp.exif(1_612_345_678))
        XCTAssertEqual(record.datedBy, .fileTime)
    }

    func testJournaledOriginalsWithoutFileAreLeftOutWithTheirSources() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let lost = "originals/2024/05/05/photo-4.jpg"
        try FileManager.default.removeItem(atPath: layout.absolute(lost))
        for suffix in ["", "-wal", "-shm"] { unlink(layout.catalog + suffix) }
        let report = try reindex()
        XCTAssertEqual(report.originals, 4)
        XCTAssertEqual(report.journaledOriginalsWithoutFile, 1)
        XCTAssertEqual(report.sourcesDropped, 1)
        XCTAssertFalse(try VerifyTestLibrary.dump(layout.catalog).0.contains { $0.path == lost })
    }

    func testInterruptedRunIsFinished() throws {
        let library = try makeLibrary()
        let pending = try library.store(VerifyTestLibrary.bytes(50), path: "originals/2024/06/01/pending.jpg")
        library.closeCatalog()
        try FileManager.default.moveItem(atPath: layout.absolute(pending.path), toPath: layout.staging + "/\(pending.sha256).staged")
        XCTAssertTrue(FileManager.default.createFile(atPath: layout.staging + "/x.part", contents: Data("p".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: layout.staging + "/\(String(repeating: "f", count: 64)).staged", contents: Data("s".utf8)))
        for suffix in ["", "-wal", "-shm"] { unlink(layout.catalog + suffix) }
        let report = try reindex()
        XCTAssertEqual(report.stagedPublished, 1)
        XCTAssertEqual(report.tempFilesRemoved, 2)
        XCTAssertEqual(report.originals, 6)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: layout.staging), [])
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings, [])
    }

    /// After a power loss a staged file can keep its name without its bytes: reindex, like fetch's
    /// recovery, publishes only content that hashes to its name and drops the rest.
    func testTornStagedContentIsNotPublishedAndAWholeOneStillIs() throws {
        let library = try makeLibrary()
        let whole = try library.store(VerifyTestLibrary.bytes(60), path: "originals/2024/06/01/whole.jpg")
        let torn = try library.store(VerifyTestLibrary.bytes(61), path: "originals/2024/06/01/torn.jpg")
        library.closeCatalog()
        try FileManager.default.moveItem(atPath: layout.absolute(whole.path), toPath: layout.staging + "/\(whole.sha256).staged")
        // Same name, same size, other bytes: torn by the crash.
        try VerifyTestLibrary.bytes(62).write(to: URL(fileURLWithPath: layout.staging + "/\(torn.sha256).staged"))
        unlink(layout.absolute(torn.path))
        for suffix in ["", "-wal", "-shm"] { unlink(layout.catalog + suffix) }
        let report = try reindex()
        XCTAssertEqual(report.stagedPublished, 1)
        XCTAssertEqual(report.tempFilesRemoved, 1)
        XCTAssertEqual(FileManager.default.contents(atPath: layout.absolute(whole.path)), VerifyTestLibrary.bytes(60))
        XCTAssertFalse(FileManager.default.fileExists(atPath: layout.absolute(torn.path)), "torn bytes never become an original")
        let paths = try VerifyTestLibrary.dump(layout.catalog).0.map(\.path)
        XCTAssertTrue(paths.contains(whole.path), "\(paths)")
        XCTAssertFalse(paths.contains(torn.path), "\(paths)")
        XCTAssertEqual(report.journaledOriginalsWithoutFile, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: layout.staging), [])
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings, [])
    }

    func testDuplicateCopiesAreLeftOutAndReported() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        try FileManager.default.copyItem(atPath: layout.absolute("originals/2024/05/01/photo-0.jpg"), toPath: layout.absolute("originals/copy.jpg"))
        let report = try reindex(force: true)
        XCTAssertEqual(report.duplicateFiles, ["originals/copy.jpg"])
        XCTAssertEqual(report.originals, 5)
    }

    func testStrayWriteAheadLogIsNotReplayedIntoTheNewCatalog() throws {
        let library = try makeLibrary()
        // Keep a -wal with frames: copy it while the writer is open, then drop the database.
        try library.recordSource(url: "http://127.0.0.1:9/late.jpg", sha256: nil, outcome: .failed)
        let wal = try Data(contentsOf: URL(fileURLWithPath: layout.catalog + "-wal"))
        XCTAssertGreaterThan(wal.count, 0)
        library.closeCatalog()
        for suffix in ["", "-shm"] { unlink(layout.catalog + suffix) }
        try wal.write(to: URL(fileURLWithPath: layout.catalog + "-wal"))
        let report = try reindex()
        let kept = try XCTUnwrap(report.previousCatalog)
        XCTAssertTrue(kept.hasPrefix("catalog.sqlite.orphan-"), kept)
        XCTAssertTrue(FileManager.default.fileExists(atPath: layout.absolute(kept) + "-wal"))
        XCTAssertEqual(try VerifyTestLibrary.dump(layout.catalog).0.count, 5)
    }

    func testEmptyCatalogLeftByAKilledFirstRunIsReplacedWithoutForce() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        for suffix in ["-wal", "-shm"] { unlink(layout.catalog + suffix) }
        try Data().write(to: URL(fileURLWithPath: layout.catalog))
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings.map(\.kind), Array(repeating: .unknownFile, count: 5))
        let report = try reindex()
        XCTAssertEqual(report.previousCatalogState, "empty")
        XCTAssertEqual(try VerifyTestLibrary.dump(layout.catalog).0, before.0)
    }

    func testDamagedJournalLinesAreSkippedAndTheRestRestored() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        var lines = try String(contentsOfFile: layout.journal, encoding: .utf8).split(separator: "\n").map(String.init)
        let damaged = try XCTUnwrap(lines.firstIndex { $0.contains("photo-2.jpg") && $0.hasPrefix("{\"kind\":\"original\"") })
        lines[damaged] = String(lines[damaged].prefix(40)) + "\u{0}garbage"
        try (lines.joined(separator: "\n") + "\n").write(toFile: layout.journal, atomically: false, encoding: .utf8)
        for suffix in ["", "-wal", "-shm"] { unlink(layout.catalog + suffix) }

        let report = try reindex()
        XCTAssertEqual(report.damagedJournalLines, [damaged + 1])
        XCTAssertEqual(report.originalsFromJournal, 4)
        XCTAssertEqual(report.originalsFromFiles, 1, "the original of the damaged line is recorded from its file")
        let after = try VerifyTestLibrary.dump(layout.catalog)
        XCTAssertEqual(after.0.map(\.sha256), before.0.map(\.sha256))
        XCTAssertEqual(after.1, before.1, "its sources still point at it")

        // The damaged line is gone from the journal (else verify would fail for good), kept aside.
        let kept = try XCTUnwrap(report.damagedJournalKept)
        XCTAssertEqual(try String(contentsOfFile: root + "/" + kept, encoding: .utf8), lines.joined(separator: "\n") + "\n")
        let rewritten = try String(contentsOfFile: layout.journal, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(rewritten.prefix(lines.count - 1)), lines.enumerated().filter { $0.offset != damaged }.map(\.element),
                       "every other line kept byte for byte")
        XCTAssertEqual(try Journal.readSalvaging(path: layout.journal).damagedLines, [])
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings.filter { $0.kind == .journalDamaged }, [])
    }

    func testAChangedOriginalKeepsItsJournaledRecordAndSourcesSoVerifyStillSeesIt() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        let path = root + "/originals/2024/05/01/photo-0.jpg"
        chmod(path, 0o644)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[2000] ^= 0xFF  // bit rot
        try bytes.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o444)

        let report = try reindex(force: true)
        XCTAssertEqual(report.changedFiles, ["originals/2024/05/01/photo-0.jpg"])
        XCTAssertEqual(report.originalsFromFiles, 0, "damaged bytes are not adopted as a new original")
        XCTAssertEqual(report.journaledOriginalsWithoutFile, 0)
        let after = try VerifyTestLibrary.dump(layout.catalog)
        XCTAssertEqual(after.0, before.0)
        XCTAssertEqual(after.1, before.1, "its sources are kept")
        let findings = try LibraryVerifier(layout: layout).run().findings
        XCTAssertEqual(findings.map(\.kind), [.hashMismatch], "verify still reports the damage")
    }

    func testAFileThatIsNoImageIsLeftOut() throws {
        _ = try makeLibrary()
        try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: root + "/originals/notes.txt"))
        let report = try reindex(force: true)
        XCTAssertEqual(report.notImages, ["originals/notes.txt"])
        XCTAssertEqual(report.originals, 5)
        XCTAssertFalse(try VerifyTestLibrary.dump(layout.catalog).0.contains { $0.path.hasSuffix("notes.txt") })
    }

    func testAFileNamedLikeAnOriginalUpToUnicodeEquivalenceLeavesThatOriginalAlone() throws {
        let library = try VerifyTestLibrary(root: root)
        let composed = "originals/2024/05/01/caf\u{E9}.jpg"
        let record = try library.store(VerifyTestLibrary.bytes(1), path: composed)
        let decomposed = "originals/2024/05/01/cafe\u{301}.jpg"
        Damage.writeFile(named: Array(decomposed.utf8), in: root, contents: VerifyTestLibrary.bytes(2))
        library.closeCatalog()
        let report = try reindex(force: true)
        XCTAssertEqual(report.changedFiles, [])
        XCTAssertEqual(report.originalsFromJournal, 1)
        XCTAssertEqual(report.originalsFromFiles, 1, "the decomposed twin is another image, adopted under its own name")
        let originals = try VerifyTestLibrary.dump(layout.catalog).0
        let byPath = Dictionary(originals.map { (Array($0.path.utf8), $0.sha256) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byPath[Array(composed.utf8)], record.sha256, "the catalogued original keeps its record")
        XCTAssertEqual(byPath[Array(decomposed.utf8)], try SHA256Hasher.hashFile(atPath: root + "/" + decomposed).sha256)
        XCTAssertEqual(try LibraryVerifier(layout: layout).run().findings, [])
    }

    func testEntriesTheCatalogCannotHoldAreListed() throws {
        _ = try makeLibrary()
        Damage.writeFile(named: Array("originals/caf".utf8) + [0xE9] + Array(".jpg".utf8), in: root, contents: VerifyTestLibrary.bytes(9))
        try FileManager.default.createSymbolicLink(atPath: root + "/originals/link.jpg", withDestinationPath: "/etc/passwd")
        XCTAssertEqual(mkfifo(root + "/originals/pipe.jpg", 0o644), 0)
        let report = try reindex(force: true)
        XCTAssertEqual(report.nonUTF8Names, ["originals/caf\\xE9.jpg"])
        XCTAssertEqual(report.notRegularFiles, ["originals/link.jpg", "originals/pipe.jpg"])
        XCTAssertEqual(report.originals, 5)
    }

    func testForceKeepsWhatAHealthyCatalogKnowsBeyondAJournalCutShort() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        let lines = try String(contentsOfFile: layout.journal, encoding: .utf8).split(separator: "\n")
        try (lines.prefix(3).joined(separator: "\n") + "\n").write(toFile: layout.journal, atomically: false, encoding: .utf8)

        let report = try reindex(force: true)
        XCTAssertGreaterThan(report.entriesFromCatalog, 0)
        let after = try VerifyTestLibrary.dump(layout.catalog)
        XCTAssertEqual(after.0, before.0)
        XCTAssertEqual(after.1, before.1, "no source lost")
        XCTAssertEqual(after.2, before.2, "no thumbnail lost")
        XCTAssertTrue(try LibraryVerifier(layout: layout).run().findings.isEmpty, "everything journaled again")
    }

    func testACancelledRunLeavesThePreviousCatalogAsItWas() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        let before = try VerifyTestLibrary.dump(layout.catalog)
        let reindexer = LibraryReindexer(layout: layout, force: true, jobs: 2)
        reindexer.cancel()
        XCTAssertThrowsError(try reindexer.run()) { error in
            guard case VerifyError.interrupted = error else { return XCTFail("got \(error)") }
            XCTAssertTrue("\(error)".contains("\(self.layout.catalog) was left as it was"), "\(error)")
        }
        let after = try VerifyTestLibrary.dump(layout.catalog)
        XCTAssertEqual(after.0, before.0)
        XCTAssertEqual(after.1, before.1)
        XCTAssertEqual(after.2, before.2)
        XCTAssertEqual(try files(matching: "catalog.sqlite."), [])
        XCTAssertEqual(try reindex(force: true).originalsFromJournal, 5, "the next run rebuilds it")
    }

    func testLockedLibraryIsRefused() throws {
        _ = try makeLibrary()
        let writer = try LibraryLock(layout: layout, mode: .exclusive)
        XCTAssertThrowsError(try reindex(force: true)) { error in
            guard case LibraryError.locked = error else { return XCTFail("got \(error)") }
        }
        withExtendedLifetime(writer) {}
    }

    func testWaitForLockQueuesBehindTheOtherProcess() throws {
        _ = try makeLibrary()
        let holder = open(layout.root + "/.lock", O_RDWR | O_CREAT, 0o644)  // another process's lock, as flock sees it
        XCTAssertEqual(flock(holder, LOCK_SH), 0)
        var reindexer = LibraryReindexer(layout: layout, force: true, jobs: 2)
        reindexer.waitForLock = true
        let started = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.4) { close(holder) }
        XCTAssertEqual(try reindexer.run().originalsFromFiles, 0)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.35, "waited for the lock")
    }

    func testNewerSchemaIsNotReplaced() throws {
        let library = try makeLibrary()
        library.closeCatalog()
        do {
            let raw = try SQLiteConnection(path: layout.catalog, readOnly: false)
            try raw.run("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
        }
        XCTAssertThrowsError(try reindex(force: true)) { error in
            guard case CatalogError.schemaTooNew = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(try files(matching: "catalog.sqlite."), [])
    }
}
