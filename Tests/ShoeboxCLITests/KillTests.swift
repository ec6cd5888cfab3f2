import Foundation
import ShoeboxKit
import XCTest

/// kill -9 of `shoebox fetch` at a few moments: after each kill `verify` passes
/// (no partial original, no row without its file, no file without its row; only
/// temp files the next run removes), and a final rerun completes every URL.
/// bench/reliability.sh runs the long version (20 kills).
final class KillTests: XCTestCase {
    func testKilledFetchesLeaveAVerifiableLibraryAndARerunCompletesEveryURL() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let urls = (0..<200).map { server.url("/slow/kill-\($0)?delay=0.05&seed=\($0)") }
        let list = try runner.writeList(urls).path
        let library = runner.library.path
        let fetch = ["fetch", list, "--library", library, "--jobs", "8"]

        var killed = 0
        for round in 1...3 {
            let (process, _, _) = try ShoeboxProcess.start(fetch)
            // Kill at a random moment after this round's fetch has stored something new
            // (a fixed delay is too early or too late on a loaded machine).
            runner.waitForStoredFiles(atLeast: 15 * round)
            usleep(useconds_t.random(in: 0...150_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "the fetch finished before the kill")
            if process.terminationReason == .uncaughtSignal { killed += 1 }

            let verify = try ShoeboxProcess.run(["verify", "--library", library])
            XCTAssertEqual(verify.status, 0, "verify after kill \(killed): " + verify.stdout + verify.stderr)
            for line in verify.stdout.split(separator: "\n") {
                XCTAssertTrue(line.hasPrefix("notice: leftover-temp ") || line.hasPrefix("notice: pending-publish "), String(line))
            }
            try runner.assertConsistent(allowStaging: true)
        }
        XCTAssertEqual(killed, 3)
        let storedBeforeRerun = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true).countOriginals()
        XCTAssertGreaterThan(storedBeforeRerun, 0, "the kills landed after some work was done")
        XCTAssertLessThan(storedBeforeRerun, 200, "the kills landed before the work was done")

        let rerun = try runner.run([list, "--jobs", "8"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(rerun.records.count, 200)
        XCTAssertTrue(rerun.records.allSatisfy { ["stored", "skipped"].contains($0["outcome"] as? String ?? "") })
        let catalog = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true)
        XCTAssertEqual(try catalog.countOriginals(), 200)
        XCTAssertEqual(try catalog.allSources().filter { $0.outcome == .stored }.count, 200)
        let final = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(final.status, 0, final.stdout + final.stderr)
        XCTAssertEqual(final.stdout, "", "the rerun removed every leftover")
        try runner.assertConsistent()
    }
}
