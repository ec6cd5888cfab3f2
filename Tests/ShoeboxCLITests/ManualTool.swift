import Foundation
import XCTest

/// Runs the external programs the manual, completion and demo tests need
/// (mandoc, man, bash, zsh, fish, exiftool), and finds files in the checkout.
enum ManualTool {
    typealias Result = ShoeboxProcess.Result

    /// The root of the checkout (the folder holding Package.swift).
    static var checkout: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func path(_ relative: String) -> String {
        checkout.appendingPathComponent(relative).path
    }

    /// Runs `program` (looked up on PATH) with `arguments`, stdin from /dev/null.
    static func run(
        _ program: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return ShoeboxProcess.waitCapturing(process, out: out, err: err)
    }
}
