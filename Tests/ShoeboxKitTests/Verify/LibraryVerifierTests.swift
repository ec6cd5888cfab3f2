import Foundation
import XCTest
@testable import ShoeboxKit

final class LibraryVerifierTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "verify-tests-" + UUID().uuidString
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func verify(quick: Bool = false) throws -> VerifyReport {
        try LibraryVerifier(layout: LibraryLayout(root: root), quick: quick, jobs: 2).run()
    }

    private func kinds(_ report: VerifyReport) -> [String: VerifyProblem.Kind] {
        Dictionary(report.findings.map { ($0.path, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    private func makeLibrary(count: Int) throws -> (VerifyTestLibrary, [OriginalRecord]) {
        let library = try VerifyTestLibrary(root: root)
        let records = try (0..<count).map { n in
            try library.store(VerifyTestLibrary.bytes(n), path: "originals/2024/05/01/photo-\(n).jpg")
        }
        return (library, records)
    }

    func testHealthyLibraryHasNoFindingsAndHashesEveryByte() throws {
        let (library, records) = try makeLibrary(count: 6)
        try library.recordSource(url: "http://127.0.0.1:9/dup.jpg", sha256: records[0].sha256, outcome: .duplicate)
        try library.recordSource(url: "http://127.0.0.1:9/missing.jpg", sha256: nil, outcome: .failed)
        try library.addThumbnail(for: records[1])
        let report = try verify()
        XCTAssertEqual(report.findings, [])
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(report.originalsChecked, 6)
        XCTAssertEqual(report.filesScanned, 6)
        XCTAssertEqual(report.thumbnailsChecked, 1)
        XCTAssertEqual(report.bytesHashed, 6 * 3000)
    }

    func testBitRotNamesFlippedTruncatedDeletedAndWritableOriginals() throws {
        let (_, records) = try makeLibrary(count: 6)
        let layout = LibraryLayout(root: root)
        try Damage.flipByte(layout.absolute(records[0].path))
        try Damage.truncate(layout.absolute(records[1].path), to: 1000)
        try FileManager.default.removeItem(atPath: layout.absolute(records[2].path))
        chmod(layout.absolute(records[3].path), 0o644)
        let report = try verify()
        XCTAssertEqual(kinds(report), [
            records[0].path: .hashMismatch, records[1].path: .sizeMismatch,
            records[2].path: .missing, records[3].path: .writable,
        ])
        XCTAssertEqual(report.problemCount, 4)
        XCTAssertFalse(report.isClean)
        let flipped = try XCTUnwrap(report.findings.first { $0.kind == .hashMismatch })
        XCTAssertTrue(flipped.line.hasPrefix("hash-mismatch \(records[0].path): SHA-256 is "), flipped.line)
        XCTAssertEqual(flipped.sha256, records[0].sha256)
    }

    func testQuickModeComparesSizesOnly() throws {
        let (_, records) = try makeLibrary(count: 3)
        let layout = LibraryLayout(root: root)
        try Damage.flipByte(layout.absolute(records[0].path))
        try Damage.truncate(layout.absolute(records[1].path), to: 10)
        let report = try verify(quick: true)
        XCTAssertEqual(kinds(report), [records[1].path: .sizeMismatch])
        XCTAssertEqual(report.bytesHashed, 0)
        XCTAssertEqual(try verify().problemCount, 2)
    }

    func testFileUnknownToTheCatalogIsReported() throws {
        _ = try makeLibrary(count: 1)
        let stray = "originals/2024/05/02/stray.jpg"
        try FileManager.default.createDirectory(atPath: root + "/originals/2024/05/02", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/" + stray, contents: Data("x".utf8)))
        try FileManager.default.createSymbolicLink(atPath: root + "/originals/link.jpg", withDestinationPath: "/etc/passwd")
        let report = try verify()
        XCTAssertEqual(kinds(report), [stray: .unknownFile, "originals/link.jpg": .unknownFile])
    }

    func testNameEqualToAnOriginalOnlyUpToUnicodeEquivalenceIsAnotherFile() throws {
        let library = try VerifyTestLibrary(root: root)
        let composed = "originals/2024/05/01/caf\u{E9}.jpg"
        try library.store(VerifyTestLibrary.bytes(1), path: composed)
        let decomposed = Array("originals/2024/05/01/cafe\u{301}.jpg".utf8)
        Damage.writeFile(named: decomposed, in: root, contents: VerifyTestLibrary.bytes(2))
        let report = try verify()
        XCTAssertEqual(report.filesScanned, 2)
        XCTAssertEqual(report.findings.map(\.kind), [.unknownFile])
        XCTAssertEqual(report.findings.map { Array($0.path.utf8) }, [decomposed], "the decomposed file, not the catalogued one")
    }

    func testACatalogPathLeadingOutOfTheLibraryIsNotFollowed() throws {
        let library = try VerifyTestLibrary(root: root)
        // A file outside the library that the path would reach, with the recorded bytes.
        let outside = root + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try library.store(VerifyTestLibrary.bytes(3), path: "originals/x.jpg")
        try FileManager.default.copyItem(atPath: root + "/originals/x.jpg", toPath: outside + "/x.jpg")
        let escaping = "originals/../../" + (outside as NSString).lastPathComponent + "/x.jpg"
        let raw = try SQLiteConnection(path: LibraryLayout(root: root).catalog, readOnly: false)
        try raw.run("UPDATE originals SET path = ?, folded_path = ? WHERE path = 'originals/x.jpg'", [.text(escaping), .text(escaping)])
        try FileManager.default.removeItem(atPath: root + "/originals/x.jpg")
        let report = try verify()
        XCTAssertEqual(kinds(report), [escaping: .badPath])
        XCTAssertEqual(report.bytesHashed, 0, "nothing outside the library is read")
    }

    func testNameThatIsNotUTF8IsReportedWithEscapes() throws {
        _ = try makeLibrary(count: 1)
        try FileManager.default.createDirectory(atPath: root + "/originals/old", withIntermediateDirectories: true)
        Damage.writeFile(named: Array("originals/old/caf".utf8) + [0xE9] + Array(".jpg".utf8), in: root, contents: Data("x".utf8))
        let report = try verify()
        XCTAssertEqual(report.filesScanned, 2)
        let finding = try XCTUnwrap(report.findings.first)
        XCTAssertEqual(finding.kind, .unknownFile)
        XCTAssertEqual(finding.path, "originals/old/caf\\xE9.jpg")
        XCTAssertTrue(finding.detail.contains("not UTF-8"), finding.detail)

        // A catalogued name spelled like the escapes does not hide the file.
        let library = try VerifyTestLibrary(root: root)
        try library.store(VerifyTestLibrary.bytes(7), path: "originals/old/caf\\xE9.jpg")
        let again = try verify()
        XCTAssertEqual(again.findings.filter { $0.kind == .unknownFile }.count, 1, "\(again.findings)")
    }

    func testChangedEXIFSummaryIsAMetadataMismatch() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory() + "verify-exif-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (data, metadata) = try MetadataFixtures.cameraJPEG(in: folder)
        XCTAssertEqual(metadata.make, "Canon")

        let library = try VerifyTestLibrary(root: root)
        try library.store(data, path: "originals/2024/05/01/same.jpg", metadata: metadata)
        var moved = data
        moved.append(0)  // different bytes, same EXIF
        let drifted = try library.store(moved, path: "originals/2024/05/01/drifted.jpg", metadata: metadata, recordedMake: "Nikon")
        let report = try verify()
        XCTAssertEqual(kinds(report), [drifted.path: .metadataMismatch])
        XCTAssertTrue(report.findings[0].detail.contains("make 'Canon' but recorded 'Nikon'"), report.findings[0].detail)
        XCTAssertEqual(try verify(quick: true).findings, [], "quick mode reads no EXIF")
    }

    func testMissingAndStaleThumbnailsAreReported() throws {
        let (library, records) = try makeLibrary(count: 3)
        let gone = try library.addThumbnail(for: records[0])
        let stale = try library.addThumbnail(for: records[1])
        let fresh = try library.addThumbnail(for: records[2])
        let layout = LibraryLayout(root: root)
        try FileManager.default.removeItem(atPath: layout.absolute(gone.path))
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: layout.absolute(stale.path))
        XCTAssertNotNil(fresh)
        let report = try verify()
        XCTAssertEqual(kinds(report), [gone.path: .thumbnailMissing, stale.path: .thumbnailStale])

        // Emptied or overwritten: its size is not the one written.
        XCTAssertTrue(FileManager.default.createFile(atPath: layout.absolute(fresh.path), contents: Data()))
        let damaged = try verify()
        XCTAssertEqual(kinds(damaged)[fresh.path], .thumbnailDamaged)
        XCTAssertTrue(damaged.findings.contains { $0.line == "thumbnail-damaged \(fresh.path): 0 bytes where 5 were written; `shoebox thumbs` makes it again" })
    }

    func testLeftoverTempFilesAndPendingPublishAreNoticesOnly() throws {
        let (library, _) = try makeLibrary(count: 1)
        let layout = LibraryLayout(root: root)
        XCTAssertTrue(FileManager.default.createFile(atPath: layout.staging + "/abc.part", contents: Data("p".utf8)))
        try FileManager.default.createDirectory(atPath: root + "/thumbnails/256/2024", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/thumbnails/256/2024/.tmp-killed.jpg", contents: Data("t".utf8)))
        // A batch committed by a run killed before it published the file.
        let data = VerifyTestLibrary.bytes(99)
        let record = try library.store(data, path: "originals/2024/05/03/pending.jpg")
        try FileManager.default.moveItem(atPath: layout.absolute(record.path), toPath: layout.staging + "/\(record.sha256).staged")
        let report = try verify()
        XCTAssertEqual(kinds(report), [".tmp/abc.part": .leftoverTemp, record.path: .pendingPublish,
                                       "thumbnails/256/2024/.tmp-killed.jpg": .leftoverTemp],
                       "the staged file is the pending original's, not a leftover that 'the next run removes'")
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(report.noticeCount, 3)
        XCTAssertTrue(report.findings.allSatisfy { $0.line.hasPrefix("notice: ") })
    }

    func testOriginalMissingFromTheJournalIsReported() throws {
        let library = try VerifyTestLibrary(root: root)
        let record = try library.store(VerifyTestLibrary.bytes(1), path: "originals/a.jpg", journaled: false)
        XCTAssertEqual(kinds(try verify()), [record.path: .notJournaled])
    }

    func testDamagedJournalIsReported() throws {
        _ = try makeLibrary(count: 1)
        let lineCount = try String(contentsOfFile: root + "/journal.jsonl", encoding: .utf8).split(separator: "\n").count
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: root + "/journal.jsonl"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("garbage\n{\"kind\":\"thumbnail-removed\",\"path\":\"x\"}\n".utf8))
        try handle.close()
        XCTAssertEqual(kinds(try verify()), ["journal.jsonl:\(lineCount + 1)": .journalDamaged])
    }

    func testEveryDamagedJournalLineIsReportedAndTheOtherChecksGoOn() throws {
        let (_, records) = try makeLibrary(count: 3)
        var lines = try String(contentsOfFile: root + "/journal.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(lines.firstIndex { $0.contains(records[0].sha256) && $0.hasPrefix("{\"kind\":\"original\"") })
        let second = try XCTUnwrap(lines.firstIndex { $0.contains(records[1].sha256) && $0.hasPrefix("{\"kind\":\"original\"") })
        lines[first].removeLast()  // still ends with a brace
        lines[second].insert(contentsOf: "{{{", at: lines[second].index(lines[second].startIndex, offsetBy: #"{"kind":"original","#.count))
        try (lines.joined(separator: "\n") + "\n").write(toFile: root + "/journal.jsonl", atomically: false, encoding: .utf8)
        XCTAssertEqual(kinds(try verify()), [
            "journal.jsonl:\(first + 1)": .journalDamaged, "journal.jsonl:\(second + 1)": .journalDamaged,
            records[0].path: .notJournaled, records[1].path: .notJournaled,
        ])
    }

    func testMissingLibraryAndMissingCatalogAreErrors() throws {
        XCTAssertThrowsError(try verify()) { XCTAssertEqual($0 as? VerifyError, .libraryMissing(path: root)) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        XCTAssertThrowsError(try verify()) { XCTAssertEqual($0 as? VerifyError, .notALibrary(path: root)) }
        try FileManager.default.createDirectory(atPath: root + "/originals", withIntermediateDirectories: true)
        XCTAssertThrowsError(try verify()) { error in
            XCTAssertEqual(error as? VerifyError, .catalogMissing(path: root + "/catalog.sqlite", library: root))
            XCTAssertTrue("\(error)".contains("shoebox reindex --library \(root)"))
        }
    }

    func testCorruptCatalogIsReportedWithTheReindexRemedy() throws {
        let (library, _) = try makeLibrary(count: 1)
        library.closeCatalog()
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: root + "/catalog.sqlite"))
        XCTAssertThrowsError(try verify()) { error in
            guard case CatalogError.corrupt = error else { return XCTFail("got \(error)") }
            XCTAssertTrue("\(error)".contains("shoebox reindex"))
        }
        XCTAssertEqual(FileManager.default.contents(atPath: root + "/catalog.sqlite"), garbage)
    }

    /// Verify reads beside a writer: it neither fails nor waits, and still finds real problems.
    func testVerifyRunsBesideAWriterAndStillFindsAChangedOriginal() throws {
        let (made, records) = try makeLibrary(count: 3)
        let layout = LibraryLayout(root: root)
        let thumbnail = try made.addThumbnail(for: records[0])
        unlink(layout.absolute(thumbnail.path))  // as thumbs --prune does, before it removes the row
        var writer: LibraryLock? = try LibraryLock(layout: layout, mode: .exclusive)
        // The writer's download in progress, and an original it adds while verify hashes.
        XCTAssertTrue(FileManager.default.createFile(atPath: layout.staging + "/0123.part", contents: Data("p".utf8)))
        var verifier = LibraryVerifier(layout: layout, jobs: 1)
        let added = LockedBox(false)
        nonisolated(unsafe) let library = made
        verifier.progress = { _, _, _ in
            guard added.update({ (done: inout Bool) -> Bool in defer { done = true }; return !done }) else { return }
            _ = try? library.store(VerifyTestLibrary.bytes(77), path: "originals/2024/05/02/added.jpg")
        }
        let clean = try verifier.run()
        XCTAssertTrue(added.current, "an original was added after the snapshot")
        XCTAssertEqual(clean.findings, [], "neither the new original nor the writer's .part is a finding")
        XCTAssertEqual(clean.originalsChecked, 3)
        XCTAssertEqual(clean.addedSinceSnapshot, 1)
        XCTAssertEqual(clean.writerFilesSkipped, 1)
        XCTAssertEqual(clean.thumbnailFindingsWithheld, 1)
        XCTAssertEqual(clean.writer, "pid \(getpid())")

        try Damage.flipByte(layout.absolute(records[1].path))
        let damaged = try verify()
        XCTAssertEqual(kinds(damaged), [records[1].path: .hashMismatch])
        XCTAssertFalse(damaged.isClean)
        XCTAssertNotNil(writer)
        writer = nil

        // Without a writer, the same .part is a leftover of an interrupted run.
        let alone = try verify()
        XCTAssertNil(alone.writer)
        XCTAssertEqual(kinds(alone), [records[1].path: .hashMismatch, ".tmp/0123.part": .leftoverTemp,
                                      thumbnail.path: .thumbnailMissing])
    }

    func testWaitForLockQueuesBehindTheWriter() throws {
        _ = try makeLibrary(count: 1)
        let holder = open(root + "/.lock", O_RDWR | O_CREAT, 0o644)  // another process's lock, as flock sees it
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        var verifier = LibraryVerifier(layout: LibraryLayout(root: root), jobs: 1)
        verifier.waitForLock = true
        let started = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.4) { close(holder) }
        XCTAssertTrue(try verifier.run().isClean)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.35, "waited for the writer")
    }

    func testProgressIsReportedForEveryOriginal() throws {
        _ = try makeLibrary(count: 12)
        let calls = LockedBox([(Int, Int, Int64)]())
        var verifier = LibraryVerifier(layout: LibraryLayout(root: root), jobs: 3)
        verifier.progress = { checked, total, bytes in calls.update { $0.append((checked, total, bytes)) } }
        _ = try verifier.run()
        let seen = calls.current
        XCTAssertEqual(seen.map(\.0).sorted(), Array(1...12))
        XCTAssertTrue(seen.allSatisfy { $0.1 == 12 })
        XCTAssertEqual(seen.max { $0.0 < $1.0 }?.2, 12 * 3000)
    }

    func testManyOriginalsAreCheckedInParallelWithTheSameResult() throws {
        let (_, records) = try makeLibrary(count: 40)
        try Damage.flipByte(LibraryLayout(root: root).absolute(records[17].path))
        let serial = try LibraryVerifier(layout: LibraryLayout(root: root), jobs: 1).run()
        let parallel = try LibraryVerifier(layout: LibraryLayout(root: root), jobs: 4).run()
        XCTAssertEqual(serial.findings, parallel.findings)
        XCTAssertEqual(parallel.findings.map(\.path), [records[17].path])
        XCTAssertEqual(parallel.bytesHashed, 40 * 3000)
    }
}
