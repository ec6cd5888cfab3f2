import Foundation
import ShoeboxTestSupport
import XCTest

/// verify only reads: a running writer no longer makes it exit 3 (library locked).
final class VerifyBesideWriterTests: XCTestCase {
    func testVerifyRunsWhileAnotherProcessHoldsTheWriterLock() throws {
        let library = try makeTemporaryDirectory(self).appendingPathComponent("library").path
        let folder = library + "/originals/2024/05/01"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for n in 0..<3 {
            let bytes = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: UInt8(n), count: 4000)
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/photo-\(n).jpg", contents: bytes))
        }
        let reindex = try ShoeboxProcess.run(["reindex", "--library", library])
        XCTAssertEqual(reindex.status, 0, reindex.stderr)

        // The writer lock as another process holds it (flock locks belong to the open file).
        let holder = open(library + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(holder, 0)
        defer { close(holder) }
        XCTAssertEqual(flock(holder, LOCK_EX | LOCK_NB), 0)
        XCTAssertEqual(ftruncate(holder, 0), 0)
        XCTAssertEqual(pwrite(holder, "pid 4242\n", 9, 0), 9)  // a stale name: the holder is this process

        let clean = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
        XCTAssertTrue(clean.stderr.contains("3 originals checked"), clean.stderr)
        XCTAssertTrue(clean.stderr.contains("a writer (pid \(getpid())) was using the library"), clean.stderr)

        let changed = folder + "/photo-1.jpg"
        chmod(changed, 0o644)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: changed))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data([0xEE]))
        try handle.close()
        chmod(changed, 0o444)
        let damaged = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(damaged.status, 1, damaged.stdout + damaged.stderr)
        XCTAssertTrue(damaged.stdout.contains("hash-mismatch originals/2024/05/01/photo-1.jpg"), damaged.stdout)
    }

    /// A real fetch storing photos while verify runs, again and again: every verify exits 0,
    /// whatever the fetch had committed, staged or published at that moment.
    func testVerifyBesideARunningFetchFindsNoProblem() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let list = try runner.writeList((0..<60).map { server.url("/slow/beside\($0)?delay=0.05") })
        let (fetch, out, err) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--jobs", "3"])
        runner.waitForStoredFiles(atLeast: 1)
        var runs = 0
        while fetch.isRunning && runs < 20 {
            let verify = try ShoeboxProcess.run(["verify", "--library", runner.library.path])
            XCTAssertEqual(verify.status, 0, "verify \(runs): " + verify.stdout + verify.stderr)
            runs += 1
        }
        XCTAssertTrue(ShoeboxProcess.waitForExit(fetch, timeout: 60))
        let fetched = ShoeboxProcess.waitCapturing(fetch, out: out, err: err)
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        XCTAssertGreaterThan(runs, 0, "verify ran while the fetch did")
        let after = try ShoeboxProcess.run(["verify", "--library", runner.library.path])
        XCTAssertEqual(after.status, 0, after.stdout + after.stderr)
        XCTAssertTrue(after.stderr.contains("60 originals checked"), after.stderr)
    }
}
