import Foundation

/// A loopback HTTP server (Resources/scripted-http/scripted_http_server.py) that answers a
/// fixed list of responses in order, and records every request it got.
public final class ScriptedHTTPServer: @unchecked Sendable {
    public struct Answer: Encodable {
        public var status: Int
        public var body: String
        public var headers: [String: String]
        public init(status: Int, body: String = "", headers: [String: String] = [:]) {
            self.status = status
            self.body = body
            self.headers = headers
        }
    }

    public struct Request: Decodable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        /// The body's length and SHA-256 (hex), as received.
        public var bodyLength: Int
        public var bodySHA256: String
    }

    public let port: Int
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    private let process = Process()
    private let input = Pipe()
    private let folder: String

    public init(answers: [Answer]) throws {
        folder = NSTemporaryDirectory() + "/scripted-http-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try JSONEncoder().encode(answers).write(to: URL(fileURLWithPath: folder + "/script.json"))
        let script = Bundle.module.url(forResource: "scripted_http_server", withExtension: "py", subdirectory: "scripted-http")?.path
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Resources/scripted-http/scripted_http_server.py").path
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, folder + "/script.json", folder + "/log.jsonl"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw SwiftS3Server.StartFailure(description: "the scripted HTTP server did not report its port")
        }
        self.port = port
    }

    /// The requests received so far, in order.
    public func requests() -> [Request] {
        guard let text = try? String(contentsOfFile: folder + "/log.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    public func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    deinit { stop() }
}
