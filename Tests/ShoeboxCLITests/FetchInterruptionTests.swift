import Foundation
import ShoeboxKit
import XCTest

/// What happens to the library when a fetch is killed, interrupted or raced.
final class FetchInterruptionTests: XCTestCase {
    var server: FixtureServer!
    var runner: FetchRunner!

    override func setUpWithError() throws {
        server = try startFixtureServer()
        runner = try FetchRunner(self)
    }

    private func slowList(_ count: Int, delay: Double = 0.05, prefix: String = "p") throws -> URL {
        let list = runner.workDirectory.appendingPathComponent("slow-\(prefix).txt")
        let lines = (0..<count).map { server.url("/slow/\(prefix)\($0)?delay=\(delay)") }
        try (lines.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        return list
    }

    private func waitForStoredFiles(atLeast count: Int, timeout: Double = 20) {
        let deadline = Date().addingTimeInterval(timeout)
        let originals = runner.library.appendingPathComponent("originals").path
        while Date() < deadline {
            let files = (FileManager.default.enumerator(atPath: originals)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jpg") }
            if files.count >= count { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    func testKillNineMidRunLeavesAConsistentLibraryAndARerunCompletes() throws {
        let list = try slowList(200)
        for round in 0..<3 {
            let (process, _, _) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--jobs", "8"])
            waitForStoredFiles(atLeast: 20 * (round + 1))
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.2))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            // Staging files may remain after a kill (the next run removes them); nothing else may be off.
            try runner.assertConsistent(allowStaging: true)
        }
        let rerun = try runner.run([list.path])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(rerun.records.count, 200)
        XCTAssertTrue(rerun.records.allSatisfy { ["stored", "skipped"].contains($0["outcome"] as? String) })
        try runner.assertConsistent()
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        XCTAssertEqual(try catalog.countOriginals(), 200)
    }

    func testSIGINTStopsCleanlyWithSummaryAndExit130() throws {
        let list = try slowList(300, delay: 0.1)
        let (process, out, err) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--json", "--jobs", "4"])
        waitForStoredFiles(atLeast: 5)
        kill(process.processIdentifier, SIGINT)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, stderr)
        XCTAssertTrue(stderr.contains("interrupted"), stderr)
        XCTAssertTrue(stderr.contains("stored"), "summary printed: \(stderr)")
        let records = FetchRunner.parseLines(String(decoding: stdout, as: UTF8.self))
        XCTAssertGreaterThan(records.count, 0)
        XCTAssertLessThan(records.count, 300, "stopped before the end")
        try runner.assertConsistent()
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        XCTAssertEqual(try catalog.countOriginals(), records.filter { $0["outcome"] as? String == "stored" }.count,
                       "every result reported as stored is recorded")
    }

    func testSecondWriterFailsFastOrWaits() throws {
        let list = try slowList(40, delay: 0.1, prefix: "first")
        let (first, _, _) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--jobs", "2"])
        waitForStoredFiles(atLeast: 1)
        let started = Date()
        let second = try runner.run(["--url", server.url("/photo/second?seed=second")])
        XCTAssertEqual(second.status, 3, second.stderr)
        XCTAssertTrue(second.stderr.contains("in use by another shoebox process"), second.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "fails fast")
        XCTAssertTrue(second.records.isEmpty)

        let waiting = try runner.run(["--url", server.url("/photo/third?seed=third"), "--wait"])
        XCTAssertEqual(waiting.status, 0, waiting.stderr)
        XCTAssertEqual(waiting.outcome(server.url("/photo/third?seed=third")), "stored")
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        try runner.assertConsistent()
    }
}
