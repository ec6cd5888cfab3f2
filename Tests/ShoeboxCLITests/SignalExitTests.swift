import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// SIGINT and SIGTERM end every command with exit status 130 and a message (the manual's
/// EXIT STATUS), not with the signal's default death. Each command is signalled once it is
/// at work, known by an event (a file stored, a line printed, the lock holding its pid, its
/// handler installed), never after a fixed sleep; a command that finished before the signal
/// landed is run again on a bigger input, so no case passes without being interrupted.
final class SignalExitTests: XCTestCase {
    /// Starts a command from `start(scale)`, waits for `ready`, signals it and checks how it
    /// ended; when it had already finished, tries again with twice the scale (three tries).
    private func assertInterrupted(_ name: String, signal: Int32, ready: (Process, Pipe, Int) throws -> Void,
                                   start: (Int) throws -> (Process, Pipe, Pipe), file: StaticString = #filePath, line: UInt = #line) throws {
        var scale = 1
        for _ in 1...3 {
            let (process, out, err) = try start(scale)
            try ready(process, out, scale)
            let landed = process.isRunning
            kill(process.processIdentifier, signal)
            XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 60), "\(name): signal \(signal) did not end it", file: file, line: line)
            let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
            guard landed, !(process.terminationReason == .exit && result.status == 0) else {
                scale *= 2
                continue
            }
            XCTAssertEqual(process.terminationReason, .exit, "\(name): died of signal \(signal) instead of exiting", file: file, line: line)
            XCTAssertEqual(result.status, 130, "\(name), signal \(signal): " + result.stderr, file: file, line: line)
            XCTAssertTrue(result.stderr.contains("interrupted"), "\(name), signal \(signal): " + result.stderr, file: file, line: line)
            return
        }
        XCTFail("\(name) finished before signal \(signal) landed, even on 4 times the input", file: file, line: line)
    }

    /// Waits (at most 10 s) until the process has a handler for SIGINT and SIGTERM.
    private func waitForHandlers(_ process: Process) {
        let deadline = Date().addingTimeInterval(10)
        let wanted = UInt64(1) << UInt64(SIGINT - 1) | UInt64(1) << UInt64(SIGTERM - 1)
        while Date() < deadline, process.isRunning {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
               let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
               mask & wanted == wanted {
                return
            }
            usleep(500)
        }
    }

    /// Waits until the process holds the library lock (its pid in .lock).
    private func waitForLock(_ library: String, _ process: Process) {
        let expected = "pid \(process.processIdentifier)"
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning,
              (try? String(contentsOfFile: library + "/.lock", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) != expected {
            usleep(500)
        }
    }

    /// A library of `count` originals of 32 KiB each (made here, catalogued by reindex).
    private func library(_ count: Int) throws -> String {
        let root = try makeTemporaryDirectory(self).appendingPathComponent("library").path
        for n in 0..<count {
            let folder = root + "/originals/2024/05/\(String(format: "%02d", n % 28 + 1))"
            if n < 28 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            var bytes = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: UInt8(n % 251), count: 32_768)
            withUnsafeBytes(of: n) { bytes.append(contentsOf: $0) }
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/photo-\(n).jpg", contents: bytes))
        }
        let reindex = try ShoeboxProcess.run(["reindex", "--library", root])
        XCTAssertEqual(reindex.status, 0, reindex.stderr)
        return root
    }

    func testFetchEndsWith130OnSIGINTAndSIGTERM() throws {
        let server = try startFixtureServer()
        for signal in [SIGINT, SIGTERM] {
            let runner = try FetchRunner(self)
            try assertInterrupted("fetch", signal: signal, ready: { _, _, _ in
                runner.waitForStoredFiles(atLeast: 2)
            }, start: { scale in
                let list = try runner.writeList((0..<100 * scale).map { server.url("/slow/s\(signal)-\(scale)-\($0)?delay=0.05") })
                return try ShoeboxProcess.start(["fetch", list.path, "--library", runner.library.path, "--jobs", "2"])
            })
            try runner.assertConsistent()
        }
    }

    func testSIGTERMMidTransferStopsWith130ASummaryAndAConsistentLibrary() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let done = server.url("/photo/before?seed=before")
        XCTAssertEqual(try runner.fetch([done]).outcome(done), "stored")
        let before = snapshotFiles(in: runner.library.path + "/originals")
        // 8 MB at about 64 KiB every 2 ms: some seconds on the wire.
        let big = server.url("/big/term?size=8000000&cl=1")
        let (process, out, err) = try ShoeboxProcess.start(["fetch", "--json", "--library", runner.library.path, "--url", big])
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try server.bytesSent("term") < 200_000 { usleep(2000) }
        XCTAssertTrue(process.isRunning, "the transfer was still under way")
        kill(process.processIdentifier, SIGTERM)
        XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 30), "SIGTERM ended the fetch")
        let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertTrue(result.stderr.contains("1 URL: 1 interrupted"), "the summary counts it: \(result.stderr)")
        XCTAssertLessThan(try server.finalBytesSent("term"), 8_000_000, "stopped mid-transfer")
        try runner.assertConsistent()
        XCTAssertEqual(snapshotFiles(in: runner.library.path + "/originals"), before, "nothing partial stored, nothing lost")
    }

    func testThumbsEndsWith130OnSIGINTAndSIGTERM() throws {
        let server = try startFixtureServer()
        for signal in [SIGINT, SIGTERM] {
            try assertInterrupted("thumbs", signal: signal, ready: { _, out, _ in
                _ = ShoeboxProcess.readSome(out.fileHandleForReading)  // its first thumbnail reported
            }, start: { scale in
                let runner = try FetchRunner(self)
                let urls = (0..<200 * scale).map { server.url("/photo/t\(signal)-\(scale)-\($0)?seed=t\(signal)x\(scale)x\($0)") }
                XCTAssertEqual(try runner.fetch(urls, ["--jobs", "8"]).status, 0)
                return try ShoeboxProcess.start(["thumbs", "--json", "--library", runner.library.path, "-j", "1", "--size", "64"])
            })
        }
    }

    func testReindexVerifyInspectAndGalleryEndWith130OnSIGINTAndSIGTERM() throws {
        var libraries: [Int: String] = [:]
        func library(scale: Int) throws -> String {
            if let made = libraries[scale] { return made }
            let made = try self.library(1500 * scale)
            libraries[scale] = made
            return made
        }
        for signal in [SIGINT, SIGTERM] {
            try assertInterrupted("reindex", signal: signal, ready: { process, _, scale in
                waitForLock(try library(scale: scale), process)
            }, start: { scale in
                let root = try library(scale: scale)
                return try ShoeboxProcess.start(["reindex", "--library", root, "--force", "-j", "1"])
            })
            try assertInterrupted("verify", signal: signal, ready: { process, _, _ in waitForHandlers(process) }, start: { scale in
                try ShoeboxProcess.start(["verify", "--library", try library(scale: scale), "-j", "1"])
            })
            // Its output (and a message per unreadable file on stderr) is read only at the end.
            try assertInterrupted("inspect", signal: signal, ready: { process, _, _ in waitForHandlers(process) }, start: { scale in
                try ShoeboxProcess.start(["inspect", try library(scale: scale) + "/originals"])
            })
            try assertInterrupted("gallery", signal: signal, ready: { process, _, _ in waitForHandlers(process) }, start: { scale in
                try ShoeboxProcess.start(["gallery", "--library", try library(scale: scale)])
            })
        }
    }
}
