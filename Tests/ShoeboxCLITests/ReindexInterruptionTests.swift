import Foundation
import ShoeboxKit
import XCTest

/// Ctrl-C or SIGTERM stops a reindex with exit status 130 and a message, the previous catalog
/// left as it was; before, reindex died of the signal (no summary) wherever it was.
final class ReindexInterruptionTests: XCTestCase {
    private let originalCount = 2000

    /// A library of `originalCount` small originals, catalogued, with a journal made long (some
    /// 12 MB of valid entries) so that a reindex is still running when the signal comes.
    private func makeLibrary() throws -> String {
        let library = try makeTemporaryDirectory(self).appendingPathComponent("library").path
        for n in 0..<originalCount {
            let folder = library + "/originals/2024/05/\(String(format: "%02d", n % 28 + 1))"
            if n < 28 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            var bytes = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: UInt8(n % 251), count: 1000)
            withUnsafeBytes(of: n) { bytes.append(contentsOf: $0) }
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/photo-\(n).jpg", contents: bytes))
        }
        let first = try ShoeboxProcess.run(["reindex", "--library", library])
        XCTAssertEqual(first.status, 0, first.stderr)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: library + "/journal.jsonl"))
        try handle.seekToEnd()
        var lines = ""
        for n in 0..<200_000 { lines += #"{"kind":"thumbnail-removed","path":"thumbnails/256/gone-\#(n).jpg"}"# + "\n" }
        try handle.write(contentsOf: Data(lines.utf8))
        try handle.close()
        return library
    }

    private func countOriginals(_ library: String) throws -> Int {
        let catalog = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true)
        defer { catalog.close() }
        return try catalog.countOriginals()
    }

    /// Waits until the reindex holds the library lock (it writes its pid into .lock once it
    /// has it, after its signal handler is set): it is then past its start, mid-run.
    private func waitUntilRunning(_ process: Process, library: String) {
        let expected = "pid \(process.processIdentifier)"
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning,
              (try? String(contentsOfFile: library + "/.lock", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) != expected {
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    func testSIGTERMAndSIGINTStopAReindexWith130AndKeepTheCatalog() throws {
        let library = try makeLibrary()
        XCTAssertEqual(try countOriginals(library), originalCount)
        for signal in [SIGTERM, SIGINT] {
            let (process, out, err) = try ShoeboxProcess.start(["reindex", "--library", library, "--force"])
            waitUntilRunning(process, library: library)
            XCTAssertTrue(process.isRunning, "the reindex ended before the signal: make the library bigger")
            kill(process.processIdentifier, signal)
            XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 60), "signal \(signal) did not end the reindex")
            let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
            XCTAssertEqual(process.terminationReason, .exit, "signal \(signal): died of it instead of exiting")
            XCTAssertEqual(result.status, 130, "signal \(signal): " + result.stderr)
            XCTAssertTrue(result.stderr.contains("interrupted"), result.stderr)
            XCTAssertTrue(result.stderr.contains("was left as it was"), result.stderr)
            XCTAssertEqual(try countOriginals(library), originalCount, "the previous catalog still opens, whole")
            let kept = try FileManager.default.contentsOfDirectory(atPath: library).filter { $0.hasPrefix("catalog.sqlite.") }
            XCTAssertEqual(kept, [], "the catalog was not moved aside")
            XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/.tmp/catalog.sqlite.rebuild"), "the half-built catalog is removed")
        }
        let rerun = try ShoeboxProcess.run(["reindex", "--library", library, "--force"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertTrue(rerun.stdout.contains("originals: \(originalCount) (\(originalCount) from the journal"), rerun.stdout)
        XCTAssertEqual(try countOriginals(library), originalCount)
        let verify = try ShoeboxProcess.run(["verify", "--library", library, "--quick"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }
}
