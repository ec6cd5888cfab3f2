import Foundation
import XCTest

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
}
