import Foundation
import XCTest
@testable import ShoeboxKit

/// The journal's hand-written lines against Foundation's JSONEncoder (sorted keys, unescaped
/// slashes), which wrote them before: the same bytes, and the same entries read back.
final class JournalLineTests: XCTestCase {
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Every control character, the two JSON escapes, a slash, DEL, non-ASCII and an emoji.
    private let awkward = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        + "\"quoted\" back\\slash /a/b \u{7F} café 東京 \u{2028} 📷"

    private func full(_ text: String, latitude: Double = 48.8584) -> OriginalRecord {
        OriginalRecord(
            sha256: String(repeating: "ab", count: 32), path: "originals/2024/06/01/" + text + ".jpg", bytes: 123_456_789_012,
            contentType: "image/jpeg", width: 4000, height: 3000, takenAt: "2024:06:01 12:34:56", datedBy: .makerNotes,
            make: text, model: "EOS R5", lens: "", exposure: "1/250 f/8 ISO 100 35mm",
            gpsLatitude: latitude, gpsLongitude: -2.2945, gpsAltitude: 35, orientation: 6, addedAt: "2026-12-04T06:00:00Z")
    }

    private var entries: [JournalEntry] {
        [
            .originalStored(full(awkward)),
            .originalStored(OriginalRecord(sha256: "00", path: "originals/x.png", bytes: 0, contentType: "image/png", addedAt: "t")),
            .sourceRecorded(SourceRecord(
                url: "https://example.com/a b/" + awkward, finalURL: "https://example.com/final?q=1&r=/x", sha256: "ff",
                etag: "W/\"etag\"", lastModified: "Tue, 01 Jun 2024 10:00:00 GMT", httpStatus: 200,
                fetchedAt: "2026-12-04T06:00:00Z", outcome: .stored, reason: awkward)),
            .sourceRecorded(SourceRecord(url: "http://h/", fetchedAt: "t", outcome: .failed)),
            .thumbnailRecorded(ThumbnailRecord(
                originalSHA256: "ab", size: "300x200", path: "thumbnails/256/" + awkward, format: "jpeg", width: 256, height: 171,
                bytes: 12_345, createdAt: "t", settings: "q=82")),
            .thumbnailRecorded(ThumbnailRecord(originalSHA256: "ab", size: "256", path: "p", format: "webp", width: 1, height: 1,
                                               bytes: 1, createdAt: "t")),
            .thumbnailRemoved(path: "thumbnails/256/" + awkward),
        ]
    }

    /// The fixtures set every field of every record, so that a field the writer leaves out
    /// shows in the comparison below: a field added to a record fails here until it is.
    func testTheFixturesSetEveryField() throws {
        let full = entries
        let records: [Any] = [try XCTUnwrap(full[0].original), try XCTUnwrap(full[2].source), try XCTUnwrap(full[4].thumbnail)]
        for record in records {
            for child in Mirror(reflecting: record).children {
                let value = Mirror(reflecting: child.value)
                XCTAssertFalse(value.displayStyle == .optional && value.children.isEmpty,
                               "\(type(of: record)).\(child.label ?? "?") is nil in the full fixture")
            }
        }
    }

    func testLinesAreJSONEncodersBytes() throws {
        for entry in entries {
            let expected = try encoder.encode(entry)
            XCTAssertEqual(String(decoding: JournalLine.encode(entry), as: UTF8.self), String(decoding: expected, as: UTF8.self))
        }
    }

    func testNumbersAreJSONEncodersAndReadBackTheSame() throws {
        let values: [Double] = [0, 1, -1, 35, 35.5, 48.8584, -122.419_416_6, 0.1 + 0.2, 1e-7, 123_456_789.123_456_7, 1e15, 1e16,
                                1e21, -0.000_001, 8_848.86, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .leastNormalMagnitude]
        for value in values {
            let entry = JournalEntry.originalStored(full("n", latitude: value))
            let line = JournalLine.encode(entry)
            XCTAssertEqual(String(decoding: line, as: UTF8.self), String(decoding: try encoder.encode(entry), as: UTF8.self), "\(value)")
            XCTAssertEqual(try JSONDecoder().decode(JournalEntry.self, from: Data(line)).original?.gpsLatitude, value)
        }
    }

    func testANumberThatIsNotFiniteIsLeftOutInsteadOfFailingTheBatch() throws {
        for value in [Double.nan, .infinity, -.infinity] {
            let entry = JournalEntry.originalStored(full("n", latitude: value))
            XCTAssertThrowsError(try encoder.encode(entry))  // what the journal did before
            let read = try JSONDecoder().decode(JournalEntry.self, from: Data(JournalLine.encode(entry)))
            XCTAssertNil(read.original?.gpsLatitude)
            XCTAssertEqual(read.original?.gpsLongitude, -2.2945)
        }
    }

    func testJournalAppendsReadBackAsWritten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-line-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + Journal.fileName
        try Journal(path: path).append(entries)
        try Journal(path: path).append([entries[0]])
        XCTAssertEqual(try Journal.read(path: path), entries + [entries[0]])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n", omittingEmptySubsequences: false).count, entries.count + 2)
        XCTAssertTrue(text.hasSuffix("}\n"))
    }
}
