import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxCLI
@testable import ShoeboxKit

/// The live progress line: on a terminal only, and without escape sequences for TERM=dumb.
final class ProgressLineTests: XCTestCase {
    /// Runs `shoebox ARGS` with stdin, stdout and stderr on a pseudo-terminal (Python's pty
    /// module) and returns everything it wrote there.
    private func runOnTerminal(_ arguments: [String], term: String) throws -> String {
        let script = """
            import os, pty, sys
            os.environ["TERM"] = sys.argv[1]
            os.environ.pop("NO_COLOR", None)
            out = bytearray()
            def read(fd):
                data = os.read(fd, 65536)
                out.extend(data)
                return data
            pty.spawn(sys.argv[2:], read)
            sys.stdout.buffer.write(bytes(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, term, ShoeboxProcess.executable.path] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = ShoeboxProcess.readAll(out.fileHandleForReading)
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func testProgressIsDrawnOnATerminalAndUsesNoEscapesForADumbOne() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let list = try runner.writeList((0..<12).map { server.url("/slow/p\($0)?delay=0.15&seed=p\($0)") })

        let smart = try runOnTerminal(["fetch", list.path, "--library", runner.library.path + "-smart", "-j", "2"], term: "xterm")
        XCTAssertTrue(smart.contains("\u{1B}[2K"), "a progress line is drawn on a terminal: \(smart.debugDescription)")
        XCTAssertTrue(smart.contains("12 URLs: 12 stored"), smart)

        let dumb = try runOnTerminal(["fetch", list.path, "--library", runner.library.path + "-dumb", "-j", "2"], term: "dumb")
        XCTAssertFalse(dumb.contains("\u{1B}"), "TERM=dumb: no escape sequence: \(dumb.debugDescription)")
        XCTAssertTrue(dumb.contains("\r"), "the line is still redrawn in place")
        XCTAssertTrue(dumb.contains("12 URLs: 12 stored"), dumb)
    }

    func testTheLineShowsDoneOfTotalWithPercentFailuresBinaryUnitsAndETA() {
        let mebibytes = Int64(12.3 * 1024 * 1024)
        let progress = FetchProgress(finished: 37, total: 106, failed: 2, bytes: mebibytes, elapsed: 3)
        XCTAssertEqual(FetchReporter.progressLine(progress), "37/106 (34%) · 2 failed · 12.3 MiB · 4.1 MiB/s · ETA 0:06")
        XCTAssertEqual(FetchReporter.progressLine(progress, failed: { "<\($0)>" }),
                       "37/106 (34%) · <2 failed> · 12.3 MiB · 4.1 MiB/s · ETA 0:06", "the failures are the coloured part")
        let none = FetchProgress(finished: 0, total: 0, failed: 0, bytes: 0, elapsed: 0)
        XCTAssertEqual(FetchReporter.progressLine(none), "0/0 (100%) · 0 failed · 0 B · 0 B/s")
        let piped = FetchProgress(finished: 1, total: nil, failed: 0, bytes: 2048, elapsed: 1)
        XCTAssertEqual(FetchReporter.progressLine(piped), "1 URL · 0 failed · 2.0 KiB · 2.0 KiB/s", "no total from a pipe: no percentage, no ETA")
        XCTAssertEqual(FetchReporter.clock(12), "0:12")
        XCTAssertEqual(FetchReporter.clock(725), "12:05")
        XCTAssertEqual(FetchReporter.clock(3723), "1:02:03")
        XCTAssertEqual(FetchReporter.clock(.infinity), "0:00")
    }

    /// The list has a URL twice, a line that is no URL and a line of a no-break space: the
    /// summary counts 13 (12 URLs and the invalid line, failed); the progress total said 15
    /// (every line that was not blank in ASCII) before.
    func testTheDrawnTotalIsWhatTheSummaryCounts() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let urls = (0..<12).map { server.url("/slow/t\($0)?delay=0.1&seed=t\($0)") }
        // The repeat is read at once (the second request): the total drops to 13 before any line is drawn.
        let list = try runner.writeList([urls[0], urls[0]] + urls.dropFirst() + ["not a url", "  ", "\u{A0}", "# comment"])
        let output = try runOnTerminal(["fetch", list.path, "--library", runner.library.path, "-j", "2"], term: "xterm")
        XCTAssertTrue(output.contains("13 URLs: 12 stored, 1 failed"), output)
        XCTAssertTrue(output.contains("/13 ("), "the progress total is the summary's: \(output.debugDescription)")
        XCTAssertFalse(output.contains("/14") || output.contains("/15") || output.contains("/16"), output.debugDescription)
        XCTAssertTrue(output.contains("1 failed"), output.debugDescription)
    }
}
