import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// kill -9 of fetch, thumbs and reindex at moments drawn from a seeded generator (KillSeed:
/// SHOEBOX_KILL_SEED replays a failure; the seed is printed and ends every failure message).
/// After each kill `verify` passes (notices about leftovers only) and no original is lost or
/// changed, byte for byte, against a snapshot taken before; a rerun then completes the work and
/// leaves a clean library. A moment is "after N more files appeared, then a few milliseconds
/// more", N and the milliseconds drawn from the seed: a fixed delay is too early or too late on
/// a loaded machine. bench/reliability.sh is the long version for fetch (20 kills or more).
final class RandomKillTests: XCTestCase {
    private let originalCount = 300

    /// Files under `folder` (recursively) whose name ends with `suffix`.
    private func countFiles(_ folder: String, suffix: String) -> Int {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(suffix) }.count
    }

    /// Waits (at most 30 s) until `count` files ending with `suffix` are under `folder`, or the process ended.
    private func waitForFiles(_ folder: String, suffix: String, atLeast count: Int, while process: Process) {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning, countFiles(folder, suffix: suffix) < count {
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// Waits (at most 30 s) until the process holds the library lock (its pid in .lock).
    private func waitForLock(_ library: String, held process: Process) {
        let expected = "pid \(process.processIdentifier)"
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning,
              (try? String(contentsOfFile: library + "/.lock", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) != expected {
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    /// kill -9 now; true when the signal ended the process (false: it had already finished).
    private func killNow(_ process: Process) -> Bool {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// `verify` exits 0 with notices about leftovers only, and every original of `before` is
    /// still there with the same bytes.
    private func assertIntact(_ library: String, before: [String: Data], _ context: String,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 0, "\(context): " + verify.stdout + verify.stderr, file: file, line: line)
        for finding in verify.stdout.split(separator: "\n") {
            XCTAssertTrue(finding.hasPrefix("notice: "), "\(context): \(finding)", file: file, line: line)
        }
        let now = snapshotFiles(in: library + "/originals")
        for (path, bytes) in before {
            XCTAssertEqual(now[path], bytes, "\(context): originals/\(path) lost or changed", file: file, line: line)
        }
    }

    /// A library of `originalCount` small JPEGs fetched from the fixture server, with a clean verify.
    private func fetchedLibrary(_ server: FixtureServer, _ runner: FetchRunner) throws -> String {
        let urls = (0..<originalCount).map { server.url("/photo/lib-\($0)?seed=lib\($0)&date=2024:05:\(String(format: "%02d", $0 % 28 + 1))%2010:00:00") }
        let fetched = try runner.fetch(urls, ["--jobs", "8"])
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        XCTAssertEqual(fetched.records.filter { $0["outcome"] as? String == "stored" }.count, originalCount)
        return runner.library.path
    }

    func testFetchKilledAtEightSeededMomentsLosesNothingAndARerunCompletes() throws {
        var random = KillSeed("fetch kills")
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let library = runner.library.path
        let urls = (0..<originalCount).map { server.url("/slow/kill-\($0)?delay=0.02&seed=\($0)") }
        let list = try runner.writeList(urls).path
        var killed = 0
        for round in 1...8 {
            let before = snapshotFiles(in: library + "/originals")
            let stored = before.count
            // Up to 25 more files per round: after 8 rounds at most 200 of the 300 are in.
            let more = Int.random(in: 1...25, using: &random), extra = UInt32.random(in: 0...20_000, using: &random)
            let context = "round \(round), after \(more) more files + \(extra) µs, \(random.label)"
            let (process, _, _) = try ShoeboxProcess.start(["fetch", list, "--library", library, "--jobs", "8"])
            waitForFiles(library + "/originals", suffix: ".jpg", atLeast: stored + more, while: process)
            usleep(extra)
            if killNow(process) { killed += 1 } else { XCTFail("the fetch finished before the kill: \(context)") }
            try runner.assertConsistent(allowStaging: true)
            try assertIntact(library, before: before, context)
        }
        XCTAssertEqual(killed, 8, random.label)
        let before = snapshotFiles(in: library + "/originals")
        XCTAssertLessThan(before.count, originalCount, "the kills landed before the work was done: \(random.label)")

        let rerun = try runner.run([list, "--jobs", "8"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr + random.label)
        XCTAssertTrue(rerun.records.allSatisfy { ["stored", "skipped"].contains($0["outcome"] as? String ?? "") }, random.label)
        let catalog = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true)
        XCTAssertEqual(try catalog.countOriginals(), originalCount, random.label)
        let final = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(final.status, 0, final.stdout + final.stderr + random.label)
        XCTAssertEqual(final.stdout, "", "the rerun removed every leftover: \(random.label)")
        try runner.assertConsistent()
        try assertIntact(library, before: before, "after the rerun, \(random.label)")
    }

    func testThumbsKilledAtFiveSeededMomentsLosesNothingAndARerunCompletes() throws {
        var random = KillSeed("thumbs kills")
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let library = try fetchedLibrary(server, runner)
        let originals = snapshotFiles(in: library + "/originals")
        let thumbnails = library + "/thumbnails"
        var killed = 0
        for round in 1...5 {
            let made = countFiles(thumbnails, suffix: ".jpg")
            let more = Int.random(in: 1...30, using: &random), extra = UInt32.random(in: 0...10_000, using: &random)
            let context = "round \(round), after \(more) more thumbnails + \(extra) µs, \(random.label)"
            let (process, _, _) = try ShoeboxProcess.start(["thumbs", "--library", library, "--size", "64", "-j", "1"])
            waitForFiles(thumbnails, suffix: ".jpg", atLeast: made + more, while: process)
            usleep(extra)
            if killNow(process) { killed += 1 } else { XCTFail("thumbs finished before the kill: \(context)") }
            try runner.assertConsistent()
            try assertIntact(library, before: originals, context)
        }
        XCTAssertEqual(killed, 5, random.label)
        XCTAssertLessThan(try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true).allThumbnails().count, originalCount,
                          "the kills landed before the work was done: \(random.label)")

        let finish = try ShoeboxProcess.run(["thumbs", "--library", library, "--size", "64"])
        XCTAssertEqual(finish.status, 0, finish.stderr + random.label)
        XCTAssertEqual(try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true).allThumbnails().count, originalCount, random.label)
        let final = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(final.status, 0, final.stdout + final.stderr + random.label)
        XCTAssertEqual(final.stdout, "", "the rerun removed every leftover: \(random.label)")
        try runner.assertConsistent()
        try assertIntact(library, before: originals, "after the rerun, \(random.label)")
    }

    func testReindexKilledAtFiveSeededMomentsLosesNothingAndARerunCompletes() throws {
        var random = KillSeed("reindex kills")
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let library = try fetchedLibrary(server, runner)
        let originals = snapshotFiles(in: library + "/originals")
        // How long a whole reindex takes here: the kills land at a seeded fraction of it,
        // counted from the moment it holds the lock.
        let timed = Date()
        let (whole, wholeOut, wholeErr) = try ShoeboxProcess.start(["reindex", "--library", library, "--force"])
        waitForLock(library, held: whole)
        let started = Date()
        let first = ShoeboxProcess.waitCapturing(whole, out: wholeOut, err: wholeErr)
        XCTAssertEqual(first.status, 0, first.stderr)
        let duration = Date().timeIntervalSince(started)
        print("reindex of \(originalCount) originals: \(String(format: "%.3f", duration)) s after the lock, \(String(format: "%.3f", Date().timeIntervalSince(timed))) s in all")
        var killed = 0
        // A reindex of 300 originals takes milliseconds in release builds, so a try may finish
        // before its kill: tries go on (at most 20) until 5 kills have landed mid-run.
        for round in 1...20 where killed < 5 {
            let fraction = Double.random(in: 0...0.7, using: &random)
            let context = "round \(round), at \(String(format: "%.2f", fraction)) of \(String(format: "%.3f", duration)) s, \(random.label)"
            let (process, _, _) = try ShoeboxProcess.start(["reindex", "--library", library, "--force"])
            waitForLock(library, held: process)
            usleep(UInt32(fraction * duration * 1_000_000))
            if killNow(process) { killed += 1 } else { print("reindex finished before the kill: \(context)") }
            try runner.assertConsistent(allowStaging: true)
            try assertIntact(library, before: originals, context)
            XCTAssertEqual(try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true).countOriginals(), originalCount,
                           "the catalog in place is whole: \(context)")
        }
        XCTAssertGreaterThanOrEqual(killed, 3, "most kills landed mid-run: \(random.label)")

        let rerun = try ShoeboxProcess.run(["reindex", "--library", library, "--force"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr + random.label)
        XCTAssertEqual(try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true).countOriginals(), originalCount, random.label)
        let final = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(final.status, 0, final.stdout + final.stderr + random.label)
        XCTAssertEqual(final.stdout, "", "the rerun removed every leftover: \(random.label)")
        try runner.assertConsistent()
        try assertIntact(library, before: originals, "after the rerun, \(random.label)")
    }
}
