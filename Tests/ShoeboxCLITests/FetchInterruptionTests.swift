import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// What happens to the library when a fetch is interrupted or raced (kill -9: RandomKillTests).
final class FetchInterruptionTests: XCTestCase {
    var server: FixtureServer!
    var runner: FetchRunner!

    override func setUpWithError() throws {
        server = try startFixtureServer()
        runner = try FetchRunner(self)
    }

    private func slowList(_ count: Int, delay: Double = 0.05, prefix: String = "p") throws -> URL {
        try runner.writeList((0..<count).map { server.url("/slow/\(prefix)\($0)?delay=\(delay)") })
    }

    func testSIGINTStopsCleanlyWithSummaryAndExit130() throws {
        let list = try slowList(300, delay: 0.1)
        let (process, out, err) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--json", "--jobs", "4"])
        runner.waitForStoredFiles(atLeast: 5)
        kill(process.processIdentifier, SIGINT)
        let stdout = ShoeboxProcess.readAll(out.fileHandleForReading)
        let stderr = String(decoding: ShoeboxProcess.readAll(err.fileHandleForReading), as: UTF8.self)
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

    func testTheSummaryCountsTheURLsCtrlCInterrupted() throws {
        let stalled = [server.url("/stall/i1?for=20"), server.url("/stall/i2?for=20")]
        let waiting = server.url("/flaky/iw?status=503&times=5&retry_after=60")
        let (process, _, err) = try ShoeboxProcess.start(["fetch", "--library", runner.library.path,
                                                         "--url", stalled[0], "--url", stalled[1], "--url", waiting])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try server.requestTimes("flaky/iw").count < 1 || server.requestTimes("stall/i2").count < 1
            || server.requestTimes("stall/i1").count < 1 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(process.processIdentifier, SIGINT)
        let stderr = String(decoding: ShoeboxProcess.readAll(err.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, stderr)
        XCTAssertTrue(stderr.contains("3 URLs: 3 interrupted"), "two running, one waiting to retry: \(stderr)")
        try runner.assertConsistent()

        // One at a time from a list: the others were never started.
        let list = try runner.writeList([server.url("/stall/q0?for=20")] + (1...4).map { server.url("/photo/q\($0)?seed=q\($0)") })
        let (queued, _, queuedErr) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--jobs", "1"])
        let started = Date().addingTimeInterval(10)
        while Date() < started, try server.requestTimes("stall/q0").count < 1 { Thread.sleep(forTimeInterval: 0.05) }
        kill(queued.processIdentifier, SIGINT)
        let queuedStderr = String(decoding: ShoeboxProcess.readAll(queuedErr.fileHandleForReading), as: UTF8.self)
        queued.waitUntilExit()
        XCTAssertEqual(queued.terminationStatus, 130, queuedStderr)
        XCTAssertTrue(queuedStderr.contains("5 URLs: 1 interrupted, 4 not started"), queuedStderr)
    }

    func testListOnAnOpenPipeIsFetchedAsItArrivesAndCtrlCEndsTheWait() throws {
        let (process, stdin, out, err) = try ShoeboxProcess.startFeeding(["fetch", "-", "--library", runner.library.path, "--json"])
        try stdin.write(contentsOf: Data((server.url("/photo/first?seed=pipe1") + "\n").utf8))
        runner.waitForStoredFiles(atLeast: 1, timeout: 10)
        XCTAssertTrue(process.isRunning, "stdin is still open")
        XCTAssertEqual(try storedFileCount(), 1, "a URL is fetched while the list is still coming")
        try stdin.write(contentsOf: Data((server.url("/photo/second?seed=pipe2") + "\n").utf8))
        runner.waitForStoredFiles(atLeast: 2, timeout: 10)
        XCTAssertEqual(try storedFileCount(), 2)

        kill(process.processIdentifier, SIGINT)
        XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 5), "Ctrl-C ends a fetch waiting for more of its list")
        try stdin.close()  // lets a run that ignored Ctrl-C end, so a failure does not hang
        let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertEqual(FetchRunner.parseLines(result.stdout).compactMap { $0["outcome"] as? String }, ["stored", "stored"])
        try runner.assertConsistent()
    }

    func testCtrlCEndsStrictWhileItReadsAnOpenPipe() throws {
        let (process, stdin, out, err) = try ShoeboxProcess.startFeeding(["fetch", "-", "--strict", "--library", runner.library.path])
        try stdin.write(contentsOf: Data((server.url("/photo/first?seed=strict") + "\n").utf8))
        ShoeboxProcess.waitForSignalHandler(process)
        Thread.sleep(forTimeInterval: 0.2)
        kill(process.processIdentifier, SIGINT)
        XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 5), "Ctrl-C ends --strict's read of stdin")
        try stdin.close()
        let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: runner.library.appendingPathComponent("originals").path), "nothing fetched")
    }

    private func storedFileCount() throws -> Int {
        let originals = runner.library.appendingPathComponent("originals").path
        return (FileManager.default.enumerator(atPath: originals)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jpg") }.count
    }

    func testSecondWriterFailsFastOrWaits() throws {
        let list = try slowList(40, delay: 0.1, prefix: "first")
        let (first, _, _) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--jobs", "2"])
        runner.waitForStoredFiles(atLeast: 1)
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

    /// Before, a fetch queued with --wait sat in a blocking flock until the holder finished,
    /// whatever signal it got.
    func testSigtermEndsAWaitForTheLockAtOnce() throws {
        let list = try slowList(40, delay: 0.3, prefix: "holder")
        let (holder, _, _) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--jobs", "2"])
        runner.waitForStoredFiles(atLeast: 1)
        let (waiting, out, err) = try ShoeboxProcess.start(
            ["fetch", "--url", server.url("/photo/queued?seed=queued"), "--wait", "--library", runner.library.path])
        ShoeboxProcess.waitForSignalHandler(waiting)
        Thread.sleep(forTimeInterval: 0.3)
        let signalled = Date()
        kill(waiting.processIdentifier, SIGTERM)
        XCTAssertTrue(ShoeboxProcess.waitForExit(waiting, timeout: 5), "SIGTERM ends the wait for the lock")
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 1.5)
        XCTAssertEqual(holder.isRunning, true, "the holder (40 URLs at 0.3 s on 2 jobs) is still at work")
        let result = ShoeboxProcess.waitCapturing(waiting, out: out, err: err)
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertTrue(result.stderr.contains("interrupted before any URL was fetched; nothing was done"), result.stderr)
        holder.waitUntilExit()
        XCTAssertEqual(holder.terminationStatus, 0)
        try runner.assertConsistent()
    }
}

/// Standard output that cannot be written: a reader that went away, a full disk.
final class OutputFailureTests: XCTestCase {
    /// `shoebox ARGS > /dev/full`: its exit status and standard error.
    private func runWithFullStdout(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = ShoeboxProcess.executable
        process.arguments = arguments
        process.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: ShoeboxProcess.readAll(err.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    func testAFullDiskOnStdoutIsAnErrorNotASilentSuccess() throws {
        let (status, stderr) = try runWithFullStdout(["completions", "bash"])
        XCTAssertEqual(status, 1, stderr)
        XCTAssertTrue(stderr.contains("cannot write to standard output: No space left on device"), stderr)
    }

    /// Before, the run stopped as on Ctrl-C: exit 130 and "interrupted", with no signal sent.
    func testFetchWhoseJSONCannotBeWrittenStopsWithStatus1() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let list = try runner.writeList((0..<40).map { server.url("/slow/f\($0)?delay=0.05&seed=f\($0)") })
        let (status, stderr) = try runWithFullStdout(["fetch", list.path, "--library", runner.library.path, "--json", "-j", "4"])
        XCTAssertEqual(status, 1, stderr)
        XCTAssertTrue(stderr.contains("cannot write to standard output: No space left on device"), stderr)
        XCTAssertTrue(stderr.contains("stopped: the results could not be written"), stderr)
        XCTAssertFalse(stderr.contains("interrupted: running transfers"), stderr)
        try runner.assertConsistent()
    }

    func testFetchWhoseJSONReaderGoesAwayStopsCleanlyWith141() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let list = try runner.writeList((0..<200).map { server.url("/slow/r\($0)?delay=0.05&seed=r\($0)") })
        let (process, out, err) = try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--json", "-j", "4"])
        // `| head -1`: read one line, then close the pipe.
        var first = Data()
        while !first.contains(0x0A) {
            let chunk = ShoeboxProcess.readSome(out.fileHandleForReading)
            if chunk.isEmpty { break }
            first += chunk
        }
        try out.fileHandleForReading.close()
        XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 10), "a fetch whose output is gone stops")
        let stderr = String(decoding: ShoeboxProcess.readAll(err.fileHandleForReading), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 141, stderr)
        XCTAssertEqual(process.terminationReason, .exit, "it exits, not killed by SIGPIPE")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: runner.library.appendingPathComponent(".tmp").path)) ?? []
        XCTAssertEqual(leftovers, [], "no partial files left behind")
        try runner.assertConsistent()
    }
}
