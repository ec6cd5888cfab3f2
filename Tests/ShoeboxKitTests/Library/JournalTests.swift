import Foundation
import XCTest
@testable import ShoeboxKit

final class JournalTests: XCTestCase {
    private var folder = ""
    private var journalPath: String { folder + "/" + Journal.fileName }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "journal-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func sampleEntries(_ n: Int) -> [JournalEntry] { Self.sampleEntries(n) }

    private static func sampleEntries(_ n: Int) -> [JournalEntry] {
        let sha = String(format: "%064x", n)
        let original = OriginalRecord(
            sha256: sha, path: "originals/2024/05/01/IMG_\(n).jpg", bytes: 123_456, contentType: "image/jpeg",
            width: 4000, height: 3000, takenAt: "2024:05:01 12:00:00", make: "Canon", model: "EOS R5",
            gpsLatitude: 48.858_37, gpsLongitude: 2.294_48, gpsAltitude: 35.5, orientation: 1,
            addedAt: "2026-11-30T01:00:00Z")
        let source = SourceRecord(
            url: "http://127.0.0.1:8080/a b/\(n).jpg?x=1&y=\"2\"", finalURL: "http://127.0.0.1:8080/final/\(n).jpg",
            sha256: sha, etag: "W/\"abc\"", lastModified: "Wed, 01 May 2024 10:00:00 GMT", httpStatus: 200,
            fetchedAt: "2026-11-30T01:00:01Z", outcome: .stored, reason: "ünïcødé ✓\nnewline")
        let thumbnail = ThumbnailRecord(
            originalSHA256: sha, size: "256", path: "thumbnails/256/\(sha).jpg", format: "jpeg", width: 256,
            height: 192, bytes: 9_000, createdAt: "2026-11-30T01:00:02Z")
        return [
            .originalStored(original), .sourceRecorded(source), .thumbnailRecorded(thumbnail),
            .thumbnailRemoved(path: "thumbnails/64/\(sha).jpg"),
        ]
    }

    func testAppendedBatchesReadBackInOrderWithEveryField() throws {
        let journal = try Journal(path: journalPath)
        try journal.append(sampleEntries(1))
        try journal.append(sampleEntries(2))
        try journal.append([])
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1) + sampleEntries(2))
    }

    func testEachEntryIsOneJSONObjectPerLine() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        let text = try String(contentsOfFile: journalPath, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        XCTAssertTrue(lines[0].hasPrefix("{\"kind\":\"original\""), String(lines[0]))
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            XCTAssertNotNil(object?["kind"])
        }
        XCTAssertTrue(lines[1].contains("\"url\":\"http://127.0.0.1:8080/a b/1.jpg?x=1&y=\\\"2\\\"\""), String(lines[1]))
    }

    func testReopenedJournalAppendsAfterExistingEntries() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        try Journal(path: journalPath).append(sampleEntries(2))
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1) + sampleEntries(2))
    }

    func testMissingJournalReadsAsEmpty() throws {
        XCTAssertEqual(try Journal.read(path: journalPath), [])
    }

    func testTornLastLineIsIgnoredByRead() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        let complete = try XCTUnwrap(FileManager.default.contents(atPath: journalPath))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"kind\":\"original\",\"original\":{\"sha256\":\"ab".utf8))
        try handle.close()
        XCTAssertGreaterThan(try XCTUnwrap(FileManager.default.contents(atPath: journalPath)).count, complete.count)
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1))
    }

    func testGarbledLastLineWithNewlineIsIgnored() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 0, 0, 0x0A]))
        try handle.close()
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1))
    }

    func testAGarbledLastLineIsTakenAlikeByReadAndByVerifysScan() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{garbage\n".utf8))
        try handle.close()
        XCTAssertEqual(try Journal.readSalvaging(path: journalPath).damagedLines, [])
        XCTAssertEqual(try Journal.scanOriginalHashes(path: journalPath).damagedLines, [], "verify must not report what reindex ignores")
        try Journal(path: journalPath).append(sampleEntries(2))  // now a line in the middle: damage for both
        XCTAssertEqual(try Journal.readSalvaging(path: journalPath).damagedLines, [5])
        XCTAssertEqual(try Journal.scanOriginalHashes(path: journalPath).damagedLines, [5])
    }

    func testRemovingLinesKeepsEveryOtherEntryAndTheOldFile() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        var text = try String(contentsOfFile: journalPath, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        text = lines[0] + "\n{damaged\n" + lines[1...].joined(separator: "\n")  // the last entry without its newline
        try text.write(toFile: journalPath, atomically: false, encoding: .utf8)
        try Journal.removeLines([2], path: journalPath, keepingOldAs: journalPath + ".damaged")
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1), "the unterminated whole entry is kept")
        XCTAssertEqual(try String(contentsOfFile: journalPath + ".damaged", encoding: .utf8), text)
        XCTAssertThrowsError(try Journal.removeLines([1], path: journalPath, keepingOldAs: journalPath + ".damaged"),
                             "an existing backup is never overwritten")
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1))
    }

    func testOpeningForWritingCutsTheTornTail() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        let complete = try XCTUnwrap(FileManager.default.contents(atPath: journalPath))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"kind\":\"sou".utf8))
        try handle.close()
        let journal = try Journal(path: journalPath)
        XCTAssertEqual(FileManager.default.contents(atPath: journalPath), complete)
        try journal.append(sampleEntries(2))
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1) + sampleEntries(2))
    }

    /// A crash in the middle of a large batch (or a runaway writer) can leave megabytes after
    /// the last newline: they are cut, every whole line before them is kept, and appends go on.
    func testOpeningForWritingCutsATornTailOfManyMegabytes() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        let complete = try XCTUnwrap(FileManager.default.contents(atPath: journalPath))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"kind\":\"source\",\"source\":{\"url\":\"http://127.0.0.1/".utf8))
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: "a"), count: 20 << 20))
        try handle.close()
        let journal = try Journal(path: journalPath)
        XCTAssertEqual(FileManager.default.contents(atPath: journalPath), complete)
        try journal.append(sampleEntries(2))
        XCTAssertEqual(try Journal.read(path: journalPath), sampleEntries(1) + sampleEntries(2))
    }

    /// The last newline found wherever it falls against the blocks read backwards.
    func testTornTailsAroundTheBlockSizeAreCutAtTheLastNewline() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        let complete = try XCTUnwrap(FileManager.default.contents(atPath: journalPath))
        let block = 64 << 10
        for tail in [1, block - complete.count - 1, block - complete.count, block - 1, block, block + 1, 2 * block + 5] {
            var torn = complete
            torn.append(Data(repeating: UInt8(ascii: "x"), count: tail))
            try torn.write(to: URL(fileURLWithPath: journalPath))
            _ = try Journal(path: journalPath)
            XCTAssertEqual(FileManager.default.contents(atPath: journalPath), complete, "a torn tail of \(tail) bytes")
        }
        // No newline at all: nothing whole, all of it goes.
        try Data(repeating: UInt8(ascii: "{"), count: block + 3).write(to: URL(fileURLWithPath: journalPath))
        _ = try Journal(path: journalPath)
        XCTAssertEqual(FileManager.default.contents(atPath: journalPath), Data())
    }

    func testBadLineBeforeTheEndIsReportedWithItsLineNumber() throws {
        try Journal(path: journalPath).append(sampleEntries(1))
        var text = try String(contentsOfFile: journalPath, encoding: .utf8)
        text += "this is not json\n"
        try text.write(toFile: journalPath, atomically: false, encoding: .utf8)
        try Journal(path: journalPath).append(sampleEntries(2))
        XCTAssertThrowsError(try Journal.read(path: journalPath)) { error in
            XCTAssertEqual(error as? JournalError, .malformed(path: journalPath, line: 5, detail: "invalid JSON"))
            XCTAssertTrue("\(error)".hasPrefix("\(journalPath):5:"))
        }
    }

    func testEntryWithoutItsRecordIsMalformed() throws {
        let text = "{\"kind\":\"original\"}\n" + "{\"kind\":\"thumbnail-removed\",\"path\":\"thumbnails/x.jpg\"}\n"
        try text.write(toFile: journalPath, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try Journal.read(path: journalPath)) { error in
            guard case JournalError.malformed(_, 1, _) = error else { return XCTFail("got \(error)") }
        }
    }

    func testJournalInMissingFolderIsUnwritable() {
        let path = folder + "/missing/journal.jsonl"
        XCTAssertThrowsError(try Journal(path: path)) { error in
            guard case JournalError.unwritable(let errorPath, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(errorPath, path)
        }
    }

    func testConcurrentAppendsKeepEveryLineWhole() throws {
        let journal = try Journal(path: journalPath)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for n in 0..<20 { try? journal.append(Self.sampleEntries(worker * 100 + n)) }
        }
        let entries = try Journal.read(path: journalPath)
        XCTAssertEqual(entries.count, 8 * 20 * 4)
        let originals = Set(entries.compactMap { $0.original?.sha256 })
        XCTAssertEqual(originals.count, 160)
    }
}

extension JournalTests {
    func testBatchOfOriginalsAndSourcesIsWrittenOriginalsFirst() throws {
        let entries = sampleEntriesForBatch()
        try Journal(path: journalPath).append(originals: [entries.0], sources: [entries.1])
        XCTAssertEqual(try Journal.read(path: journalPath), [.originalStored(entries.0), .sourceRecorded(entries.1)])
    }

    private func sampleEntriesForBatch() -> (OriginalRecord, SourceRecord) {
        let original = OriginalRecord(sha256: String(repeating: "a", count: 64), path: "originals/a.jpg", bytes: 1, contentType: "image/jpeg", addedAt: "t")
        let source = SourceRecord(url: "http://127.0.0.1/a.jpg", sha256: original.sha256, fetchedAt: "t", outcome: .stored)
        return (original, source)
    }
}

extension JournalTests {
    func testOriginalHashesMatchWhatReadFinds() throws {
        let journal = try Journal(path: journalPath)
        for n in 0..<5 { try journal.append(sampleEntriesForHashes(n)) }
        let expected = Set(try Journal.read(path: journalPath).compactMap { $0.original?.sha256 })
        XCTAssertEqual(expected.count, 5)
        XCTAssertEqual(try Journal.scanOriginalHashes(path: journalPath).hashes, expected)
        XCTAssertEqual(try Journal.scanOriginalHashes(path: journalPath).damagedLines, [])
    }

    func testOriginalHashesDecodeLinesWrittenDifferentlyAndTolerateATornEnd() throws {
        let sha = String(repeating: "b", count: 64)
        let text = #"{"original":{"sha256":""# + sha + #"","path":"originals/b.jpg","bytes":1,"contentType":"image/jpeg","addedAt":"t"},"kind":"original"}"#
            + "\n" + #"{"kind":"original","original":{"sha256":"cc"#
        try text.write(toFile: journalPath, atomically: false, encoding: .utf8)
        let scan = try Journal.scanOriginalHashes(path: journalPath)
        XCTAssertEqual(scan.hashes, [sha])
        XCTAssertEqual(scan.damagedLines, [], "a torn end is no damage")
    }

    func testOriginalHashesReportABadLineBeforeTheEnd() throws {
        try Journal(path: journalPath).append(sampleEntriesForHashes(1))
        var text = try String(contentsOfFile: journalPath, encoding: .utf8)
        text = "not json\n" + text
        try text.write(toFile: journalPath, atomically: false, encoding: .utf8)
        XCTAssertEqual(try Journal.scanOriginalHashes(path: journalPath).damagedLines, [1])
        let none = try Journal.scanOriginalHashes(path: folder + "/none.jsonl")
        XCTAssertEqual(none.hashes, [])
        XCTAssertEqual(none.damagedLines, [])
    }

    func testEveryDamagedLineIsFoundEvenWhenItStillStartsAndEndsLikeAnEntry() throws {
        let journal = try Journal(path: journalPath)
        for n in 0..<4 { try journal.append(sampleEntriesForHashes(n)) }
        var lines = try String(contentsOfFile: journalPath, encoding: .utf8).split(separator: "\n").map(String.init)
        let expected = Set(try Journal.read(path: journalPath).compactMap { $0.original?.sha256 })
        lines[0].removeLast()  // ends with the inner object's brace: still looks whole
        // Between two members (inside a string it would still be valid JSON: no scan can see that).
        lines[4].insert(contentsOf: "{{{", at: lines[4].index(lines[4].startIndex, offsetBy: #"{"kind":"original","#.count))
        try (lines.joined(separator: "\n") + "\n").write(toFile: journalPath, atomically: false, encoding: .utf8)

        let scan = try Journal.scanOriginalHashes(path: journalPath)
        XCTAssertEqual(scan.damagedLines, [1, 5])
        XCTAssertEqual(scan.hashes.count, 2, "the other originals are still found")
        XCTAssertTrue(scan.hashes.isSubset(of: expected))
    }

    private func sampleEntriesForHashes(_ n: Int) -> [JournalEntry] {
        let original = OriginalRecord(
            sha256: String(format: "%064x", n + 1000), path: "originals/\(n)\"sha256\":\"x.jpg", bytes: 1,
            contentType: "image/jpeg", make: "Ca\"non", addedAt: "t")
        let source = SourceRecord(url: "http://127.0.0.1/\(n)", sha256: original.sha256, fetchedAt: "t", outcome: .stored)
        let thumb = ThumbnailRecord(originalSHA256: original.sha256, size: "256", path: "thumbnails/\(n).jpg", format: "jpeg", width: 1, height: 1, bytes: 1, createdAt: "t")
        return [.originalStored(original), .sourceRecorded(source), .thumbnailRecorded(thumb), .thumbnailRemoved(path: "thumbnails/\(n).jpg")]
    }
}

extension JournalTests {
    func testSalvagingReadSkipsDamagedLinesAndNamesThem() throws {
        try Journal(path: journalPath).append(sampleEntriesForHashes(1))
        var text = try String(contentsOfFile: journalPath, encoding: .utf8)
        text = "garbage\n" + text + "{\"kind\":\"original\"}\n"
        try text.write(toFile: journalPath, atomically: false, encoding: .utf8)
        try Journal(path: journalPath).append(sampleEntriesForHashes(2))
        let salvaged = try Journal.readSalvaging(path: journalPath)
        XCTAssertEqual(salvaged.damagedLines, [1, 6])
        XCTAssertEqual(salvaged.entries, sampleEntriesForHashes(1) + sampleEntriesForHashes(2))
        XCTAssertThrowsError(try Journal.read(path: journalPath))
    }
}

extension JournalTests {
    /// Verify streams the journal: lines cut across its blocks anywhere are found whole.
    func testScanningInTinyBlocksFindsWhatOneBlockFinds() throws {
        let journal = try Journal(path: journalPath)
        for n in 0..<6 { try journal.append(sampleEntriesForHashes(n)) }
        var text = try String(contentsOfFile: journalPath, encoding: .utf8)
        text = "garbage\n\n" + text + "{\"kind\":\"original\",\"orig"  // damage, an empty line, a torn end
        try text.write(toFile: journalPath, atomically: false, encoding: .utf8)
        let whole = try Journal.scanOriginalHashes(path: journalPath)
        XCTAssertEqual(whole.hashes.count, 6)
        XCTAssertEqual(whole.damagedLines, [1])
        for size in [1, 7, 64, 333] {
            var reader = JournalLineReader(path: journalPath)
            reader.blockSize = size
            let scan = try Journal.scanOriginalHashes(reader)
            XCTAssertEqual(scan.hashes, whole.hashes, "blocks of \(size) bytes")
            XCTAssertEqual(scan.damagedLines, [1], "blocks of \(size) bytes")
        }
    }

    /// A line over the limit is not loaded: reported (unless it is the torn last line), the rest read.
    func testAnOverLongLineIsReportedNotLoaded() throws {
        let journal = try Journal(path: journalPath)
        try journal.append(sampleEntriesForHashes(1))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: "{"), count: 5000))
        try handle.close()
        var reader = JournalLineReader(path: journalPath)
        reader.maxLineLength = 1000
        reader.blockSize = 300
        var lengths: [Int] = []
        try reader.forEachLine { _, line in
            if case .overLong(let bytes) = line { lengths.append(bytes) }
        }
        XCTAssertEqual(lengths, [5000])
        let torn = try Journal.scanOriginalHashes(reader)
        XCTAssertEqual(torn.hashes.count, 1)
        XCTAssertEqual(torn.damagedLines, [], "an over-long torn end is a torn end")
        XCTAssertEqual(torn.overLongLines, [])

        let tornAndMore = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try tornAndMore.seekToEnd()
        try tornAndMore.write(contentsOf: Data("\n".utf8))
        try tornAndMore.close()
        try Journal(path: journalPath).append(sampleEntriesForHashes(2))
        let scan = try Journal.scanOriginalHashes(reader)
        XCTAssertEqual(scan.hashes.count, 2)
        XCTAssertEqual(scan.damagedLines, [5])
        XCTAssertEqual(scan.overLongLines, [5])
    }
}

extension JournalTests {
    /// reindex streams the journal too: an over-long line is a bad line, not loaded.
    func testReadTakesAnOverLongLineForABadOne() throws {
        try Journal(path: journalPath).append(sampleEntriesForHashes(1))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: "{"), count: 5000) + Data("\n".utf8))
        try handle.close()
        var reader = JournalLineReader(path: journalPath)
        reader.maxLineLength = 1000
        XCTAssertEqual(try Journal.decode(reader, salvage: true).entries, sampleEntriesForHashes(1), "a torn end")
        try Journal(path: journalPath).append(sampleEntriesForHashes(2))
        let salvaged = try Journal.decode(reader, salvage: true)
        XCTAssertEqual(salvaged.entries, sampleEntriesForHashes(1) + sampleEntriesForHashes(2))
        XCTAssertEqual(salvaged.damagedLines, [5])
        XCTAssertThrowsError(try Journal.decode(reader, salvage: false)) { error in
            XCTAssertEqual(error as? JournalError, .malformed(
                path: self.journalPath, line: 5, detail: "longer than 1000 B, more than any entry; not loaded"))
        }
    }
}
