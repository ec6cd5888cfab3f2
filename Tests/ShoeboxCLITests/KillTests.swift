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
        let urls = (0..<200).map { server.url("/slow/kill-\($0)?delay=0.1&seed=\($0)") }
        let list = runner.workDirectory.appendingPathComponent("list.txt").path
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let library = runner.library.path
        let fetch = ["fetch", list, "--library", library, "--jobs", "8"]

        // 8 transfers of >= 0.1 s each: at most 80 files/s, so 200 files take >= 2.5 s and
        // kills at 0.4 + 0.7 + 1.0 s of running time always land mid-run.
        var killed = 0
        for moment in [0.4, 0.7, 1.0] {
            let (process, _, _) = try ShoeboxProcess.start(fetch)
            usleep(useconds_t(moment * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "the fetch finished before the kill")
            if process.terminationReason == .uncaughtSignal { killed += 1 }

            let verify = try ShoeboxProcess.run(["verify", "--library", library])
            XCTAssertEqual(verify.status, 0, "verify after kill \(killed): " + verify.stdout + verify.stderr)
            for line in verify.stdout.split(separator: "\n") {
                XCTAssertTrue(line.hasPrefix("notice: leftover-temp ") || line.hasPrefix("notice: pending-publish "), String(line))
            }
            try assertEveryRowHasItsBytes(library)
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

    /// Independently of verify: every catalog row has its bytes, in place or (committed by a
    /// run killed before it published them) staged in .tmp/ for the next run; every file
    /// under originals/ has its row; no partial download sits in originals/.
    private func assertEveryRowHasItsBytes(_ library: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let catalog = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true)
        defer { catalog.close() }
        let rows = try catalog.allOriginals()
        for row in rows {
            let placed = library + "/" + row.path
            let staged = library + "/.tmp/" + row.sha256 + ".staged"
            let path = FileManager.default.fileExists(atPath: placed) ? placed : staged
            let hashed = try? SHA256Hasher.hashFile(atPath: path)
            XCTAssertEqual(hashed?.sha256, row.sha256, "row without its bytes: \(row.path)", file: file, line: line)
        }
        let known = Set(rows.map(\.path))
        let walker = FileManager.default.enumerator(atPath: library + "/originals")
        while let name = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: library + "/originals/" + name, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            XCTAssertTrue(known.contains("originals/" + name), "file without row: originals/\(name)", file: file, line: line)
        }
    }
}
