import Foundation
import XCTest

/// verify streams journal.jsonl: a journal of hundreds of MB does not mean hundreds of MB of
/// memory. Before, it read the whole file at once (271 MB peak RSS for a 120 MB journal).
final class VerifyLargeJournalTests: XCTestCase {
    /// `shoebox ARGS` under /usr/bin/time: its result and its peak RSS in bytes.
    private func runMeasured(_ arguments: [String], in folder: URL) throws -> (ShoeboxProcess.Result, Int) {
        let report = folder.appendingPathComponent("time-\(UUID().uuidString)").path
        let (process, out, err) = try ShoeboxProcess.start(
            arguments, command: ["/usr/bin/time", "-f", "%M", "-o", report, ShoeboxProcess.executable.path])
        let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let kilobytes = try XCTUnwrap(Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last ?? ""), text)
        return (result, kilobytes * 1024)
    }

    func testAHugeTornLineOrOverLongLineKeepsVerifysMemoryBounded() throws {
        let folder = try makeTemporaryDirectory(self)
        let library = folder.appendingPathComponent("library")
        let originals = library.appendingPathComponent("originals/2024/05/01")
        try FileManager.default.createDirectory(at: originals, withIntermediateDirectories: true)
        try (Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 7, count: 2000)).write(to: originals.appendingPathComponent("a.jpg"))
        let reindex = try ShoeboxProcess.run(["reindex", "--library", library.path])
        XCTAssertEqual(reindex.status, 0, reindex.stderr)
        let journal = library.appendingPathComponent("journal.jsonl").path
        let firstLine = try XCTUnwrap(String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n").first)

        // A crash mid-write of 120 MB without a newline: a torn end, which is no problem.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journal))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"kind":"source","source":{"url":"http://127.0.0.1/"#.utf8))
        let megabyte = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<120 { try handle.write(contentsOf: megabyte) }
        try handle.close()
        let bound = 100 << 20
        let (torn, tornRSS) = try runMeasured(["verify", "--library", library.path], in: folder)
        XCTAssertEqual(torn.status, 0, torn.stdout + torn.stderr)
        XCTAssertTrue(torn.stderr.contains("1 original checked"), torn.stderr)
        XCTAssertLessThan(tornRSS, bound, "peak RSS of verify with a 120 MB torn line")

        // Followed by a whole entry, it is a line of the journal: damaged, reported, not loaded.
        let more = try XCTUnwrap(FileHandle(forWritingAtPath: journal))
        try more.seekToEnd()
        try more.write(contentsOf: Data(("\n" + firstLine + "\n").utf8))
        try more.close()
        let (long, longRSS) = try runMeasured(["verify", "--library", library.path], in: folder)
        XCTAssertEqual(long.status, 1, long.stdout + long.stderr)
        XCTAssertTrue(long.stdout.contains("journal-damaged journal.jsonl:2: line 2 is longer than 16.0 MiB"), long.stdout)
        XCTAssertLessThan(longRSS, bound, "peak RSS of verify with a 120 MB line")
    }
}
