import Foundation
import ShoeboxTestSupport
import XCTest

/// Runs the built `shoebox` binary as a user would, capturing its output.
struct ShoeboxProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `shoebox` executable built next to the test bundle.
    static var executable: URL {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("shoebox").path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("shoebox")
    }

    /// A write to the stdin of a child that already ended fails with EPIPE (a test failure)
    /// instead of SIGPIPE ending the whole test run without its summary.
    private static let brokenPipesAreErrors: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// `shoebox ARGS` with NO_COLOR set and no SHOEBOX_LIBRARY from the test's environment.
    /// `command`: what runs shoebox, when not the built binary itself (another user, a limit).
    private static func make(_ arguments: [String], environment: [String: String] = [:], command: [String]? = nil) -> Process {
        brokenPipesAreErrors
        let process = Process()
        let command = command ?? [executable.path]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst()) + arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "SHOEBOX_LIBRARY")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        return process
    }

    /// Starts `shoebox ARGS` without waiting (for kill and concurrency tests).
    static func start(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
                      command: [String]? = nil) throws -> (Process, Pipe, Pipe) {
        let process = make(arguments, environment: environment, command: command)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let input = Pipe()
            process.standardInput = input
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: stdin)
            try input.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        return (process, out, err)
    }

    /// Starts `shoebox ARGS` with its stdin on a pipe the caller writes to and closes.
    static func startFeeding(_ arguments: [String]) throws -> (process: Process, stdin: FileHandle, out: Pipe, err: Pipe) {
        let process = make(arguments)
        let input = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, input.fileHandleForWriting, out, err)
    }

    /// Waits (at most `timeout` seconds) until `process` handles SIGINT itself, so a test's Ctrl-C
    /// lands on the command's handler and not on the default action of a process still starting.
    static func waitForSignalHandler(_ process: Process, timeout: Double = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
               let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
               mask & (1 << (UInt64(SIGINT) - 1)) != 0 {
                return
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Waits at most `timeout` seconds for `process` to end; false if it did not, and it is
    /// then killed, so that its status can be read (Foundation traps on a running one's).
    static func waitForExit(_ process: Process, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    /// Everything left to read from `handle` (empty on a read error, which the caller's
    static func readAll(_ handle: FileHandle) -> Data { PipeReading.readAll(handle) }
    static func readSome(_ handle: FileHandle) -> Data { PipeReading.readSome(handle) }

    /// Runs `shoebox ARGS` to completion.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil) throws -> Result {
        let (process, out, err) = try start(arguments, environment: environment, stdin: stdin)
        return waitCapturing(process, out: out, err: err)
    }

    /// Waits for a started process, reading both pipes at once so neither fills up and blocks it.
    static func waitCapturing(_ process: Process, out: Pipe, err: Pipe) -> Result {
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errData = readAll(err.fileHandleForReading) }
        let outData = readAll(out.fileHandleForReading)
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A fresh temporary directory, removed at the end of the test.
func makeTemporaryDirectory(_ test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock {
        // Originals are read-only files; their folders stay writable, so removal works.
        try? FileManager.default.removeItem(at: url)
    }
    return url
}
