import Foundation
import XCTest

/// A loopback HTTP server of Fixtures/ (fixture_server.py, or hostile_server.py for
/// hand-made framing), started and stopped by a test.
public final class FixtureServer: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    public let port: Int

    /// The folder of the fixture scripts (for Python that imports them).
    public static var fixturesFolder: String? { Bundle.module.url(forResource: "Fixtures", withExtension: nil)?.path }

    public init(script name: String = "fixture_server") throws {
        guard let script = Bundle.module.url(forResource: name, withExtension: "py", subdirectory: "Fixtures") else {
            throw NSError(domain: "FixtureServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name).py missing from the test bundle"])
        }
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = PipeReading.readSome(output.fileHandleForReading)
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw NSError(domain: "FixtureServer", code: 2, userInfo: [NSLocalizedDescriptionKey: "fixture server did not report its port"])
        }
        self.port = port
    }

    public func stop() {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Body of a plain GET (bookkeeping routes and reference bytes).
    public func get(_ path: String) throws -> Data {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["--silent", "--fail", "--max-time", "60", url(path)]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let data = PipeReading.readAll(output.fileHandleForReading)
        curl.waitUntilExit()
        guard curl.terminationStatus == 0 else {
            throw NSError(domain: "FixtureServer", code: 3, userInfo: [NSLocalizedDescriptionKey: "GET \(path) failed"])
        }
        return data
    }

    /// Times (monotonic seconds) of the requests the server saw for a key.
    public func requestTimes(_ key: String) throws -> [Double] {
        try JSONDecoder().decode([Double].self, from: get("/_log/" + key))
    }

    /// One request the server answered: its method, path (with the query), status and time
    /// (monotonic seconds, the clock of `requestTimes`).
    public struct Access: Decodable, Equatable, Sendable {
        public var method: String
        public var path: String
        public var status: Int
        public var time: Double

        public init(from decoder: Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            method = try fields.decode(String.self)
            path = try fields.decode(String.self)
            status = try fields.decode(Int.self)
            time = try fields.decode(Double.self)
        }
    }

    /// Every request answered so far, in order (bookkeeping routes not counted): the server's log.
    public func accessLog() throws -> [Access] {
        try JSONDecoder().decode([Access].self, from: get("/_access"))
    }

    /// Seconds between the first two requests for a key (a retry's wait); throws when
    /// there were fewer than two, so a test fails instead of trapping on an index.
    public func firstRetryDelay(_ key: String) throws -> Double {
        let times = try requestTimes(key)
        guard times.count >= 2 else {
            throw NSError(domain: "FixtureServer", code: 4, userInfo: [NSLocalizedDescriptionKey: "\(key): \(times.count) request(s), no retry"])
        }
        return times[1] - times[0]
    }

    /// Body bytes the server actually wrote for a /big key.
    public func bytesSent(_ key: String) throws -> Int {
        try JSONDecoder().decode(Int.self, from: get("/_sent/" + key))
    }

    /// Body bytes written for a /big (or page) key once its handler has returned, so the
    /// count is final; throws when it has not returned within `timeout` seconds.
    public func finalBytesSent(_ key: String, timeout: Double = 30) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while try !JSONDecoder().decode(Bool.self, from: get("/_finished/" + key)) {
            guard Date() < deadline else {
                throw NSError(domain: "FixtureServer", code: 5, userInfo: [NSLocalizedDescriptionKey: "\(key): the server is still sending after \(timeout) s"])
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try bytesSent(key)
    }

    /// Requests in flight now and the most seen at once (bookkeeping routes not counted).
    public func concurrency() throws -> (now: Int, max: Int) {
        let value = try JSONDecoder().decode([String: Int].self, from: get("/_concurrency"))
        return (value["now"] ?? -1, value["max"] ?? -1)
    }
}

extension XCTestCase {
    /// A fixture server stopped at the end of the test.
    public func startFixtureServer(script: String = "fixture_server") throws -> FixtureServer {
        let server = try FixtureServer(script: script)
        addTeardownBlock { server.stop() }
        return server
    }
}
