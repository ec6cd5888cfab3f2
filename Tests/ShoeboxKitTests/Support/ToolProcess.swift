import Foundation

/// Runs a reference tool (vips, exiftool, ImageMagick…) to completion.
enum ToolProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The tool's stdout; throws with its stderr when it exits non-zero.
    /// A bare name is looked up in /usr/bin.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool.hasPrefix("/") ? tool : "/usr/bin/" + tool)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes at once so neither fills up and blocks the tool.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        // readToEnd throws on a read error where readDataToEndOfFile would trap.
        DispatchQueue.global().async(group: group) { errData = (try? err.fileHandleForReading.readToEnd()) ?? Data() }
        let outData = try out.fileHandleForReading.readToEnd() ?? Data()
        group.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(String(decoding: errData, as: UTF8.self))")
        }
        return String(decoding: outData, as: UTF8.self)
    }
}
