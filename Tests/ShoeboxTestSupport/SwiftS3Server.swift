import Foundation
import ShoeboxKit
#if canImport(Glibc)
import Glibc
#endif

/// A real S3 server for tests: OpenStack Swift with s3api and tempauth on 127.0.0.1, started
/// by Resources/swift-s3/start-swift-s3.sh on free ports in a fresh temporary folder. About
/// 255 MB and 5 s to start: start one per test class (class setUp / tearDown).
///
/// The script runs in its own process group; `stop()` (or deinit) ends it, and the script
/// stops the four servers it started (they make their own sessions). The script also stops
/// them when this process dies (its stdin, a pipe from here, reaches end of file).
public final class SwiftS3Server: @unchecked Sendable {
    public let endpoint: String
    public let accessKey = "test:tester"
    public let secret = "testing"
    public let region = "us-east-1"
    /// The temporary folder (configs, rings, objects, logs under log/).
    public let directory: String
    private let pid: pid_t
    private var stdinWrite: Int32
    private var stopped = false

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The start script shipped as a resource (bash SCRIPT DIR also works by hand).
    public static var scriptPath: String {
        if let url = Bundle.module.url(forResource: "start-swift-s3", withExtension: "sh", subdirectory: "swift-s3") {
            return url.path
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/swift-s3/start-swift-s3.sh").path
    }

    /// Starts the server and waits until it answers signed S3 requests (at most `timeout` s).
    public init(timeout: Double = 120) throws {
        let template = NSTemporaryDirectory() + "/shoebox-swift-s3.XXXXXX"
        var templateBytes = Array(template.utf8CString)
        guard let made = mkdtemp(&templateBytes) else {
            throw StartFailure(description: "cannot make a temporary folder: \(String(cString: strerror(errno)))")
        }
        // As the script names it (`cd DIR && pwd`: no "//" from a TMPDIR ending in "/"), so that
        // stop() recognises the servers' command lines.
        directory = (String(cString: made) as NSString).standardizingPath

        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0 else { throw StartFailure(description: "pipe failed") }
        // Our ends must not leak into the children.
        _ = fcntl(inPipe[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(outPipe[0], F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so that stop() can signal the script and its helpers at once.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let arguments = ["/bin/bash", Self.scriptPath, directory, "--until-stdin-closes"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, "/bin/bash", &actions, &attributes, &argv, environ)
        close(inPipe[0])
        close(outPipe[1])
        guard status == 0 else {
            close(inPipe[1])
            close(outPipe[0])
            throw StartFailure(description: "cannot run bash \(Self.scriptPath): \(String(cString: strerror(status)))")
        }
        pid = child
        stdinWrite = inPipe[1]

        // The script prints the endpoint once a signed request succeeded.
        let deadline = Date().addingTimeInterval(timeout)
        var output = Data()
        var line: String?
        var buffer = [UInt8](repeating: 0, count: 512)
        while line == nil && Date() < deadline {
            var poller = pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(outPipe[0], &buffer, buffer.count)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
            if let newline = output.firstIndex(of: UInt8(ascii: "\n")) {
                line = String(decoding: output[..<newline], as: UTF8.self)
            }
        }
        close(outPipe[0])
        guard let line, line.hasPrefix("http://127.0.0.1:") else {
            let logs = (try? String(contentsOfFile: directory + "/log/proxy.log", encoding: .utf8)).map { String($0.suffix(2000)) } ?? ""
            endpoint = ""
            stopProcesses()
            try? FileManager.default.removeItem(atPath: directory)
            stopped = true
            throw StartFailure(description: "the Swift S3 server did not start within \(timeout) s (script output: '\(String(decoding: output, as: UTF8.self))'); proxy log: \(logs)")
        }
        endpoint = line
    }

    deinit { stop() }

    /// A client configuration for this server (path-style, its endpoint), with the given retries.
    public func configuration(retryPolicy: S3RetryPolicy = S3RetryPolicy(maxAttempts: 3, baseDelay: 0.05)) throws -> S3Configuration {
        var configuration = try S3Configuration(accessKeyID: accessKey, secretAccessKey: secret, region: region, endpoint: endpoint)
        configuration.retryPolicy = retryPolicy
        return configuration
    }

    /// Makes a bucket with /usr/bin/curl (independent of the client under test).
    /// A 503 (a server of the cluster busy or still starting on a loaded machine) is asked
    /// again, for at most 30 s.
    public func createBucket(_ name: String) throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let code = try putBucket(name)
            if code == "200" { return }
            guard code == "503" || code == "000", Date() < deadline else {
                throw StartFailure(description: "PUT bucket \(name) answered HTTP \(code)")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    private func putBucket(_ name: String) throws -> String {
        try curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT"], path: "/\(name)",
                 contentSHA256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// Sends a request signed by /usr/bin/curl (independent of the client under test) with the
    /// given `x-amz-content-sha256`, whatever the body: the body of `file` (a PUT), or none.
    /// Returns the HTTP status and the answer's body.
    public func signedPut(path: String, file: String? = nil, contentSHA256: String) throws -> (status: Int, body: String) {
        let output = try curl(["-w", "\n%{http_code}", "-X", "PUT"] + (file.map { ["-T", $0] } ?? []),
                              path: path, contentSHA256: contentSHA256)
        guard let newline = output.lastIndex(of: "\n") else { return (0, output) }
        return (Int(output[output.index(after: newline)...]) ?? 0, String(output[..<newline]))
    }

    /// Runs curl -s ARGUMENTS with SigV4 credentials and `x-amz-content-sha256`; returns its output.
    private func curl(_ arguments: [String], path: String, contentSHA256: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        // The access key's ':' would split `--user KEY:SECRET`: the credentials go in the URL,
        // the key's ':' percent-encoded.
        let withCredentials = endpoint.replacingOccurrences(of: "http://", with: "http://test%3Atester:\(secret)@")
        process.arguments = ["-s"] + arguments + [
            "--aws-sigv4", "aws:amz:\(region):s3", "-H", "x-amz-content-sha256: \(contentSHA256)", withCredentials + path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// Stops every process started and removes the temporary folder. Safe to call twice.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        stopProcesses()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func stopProcesses() {
        if stdinWrite >= 0 {
            close(stdinWrite)
            stdinWrite = -1
        }
        // The servers' pids, in case the script cannot stop them.
        let serverPids = ((try? String(contentsOfFile: directory + "/run/servers.pid", encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { pid_t($0) }
        kill(-pid, SIGTERM)
        var status: Int32 = 0
        var exited = false
        // The script gives its servers 3 s after SIGTERM, then kills them: wait for it longer than that.
        for _ in 0..<300 {
            if waitpid(pid, &status, WNOHANG) == pid { exited = true; break }
            usleep(50_000)
        }
        if !exited {
            kill(-pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        for server in serverPids where kill(server, 0) == 0 {
            // Only our own: a server's command line names our folder.
            // (Read to the end: /proc files report a size of 0.)
            let data = FileHandle(forReadingAtPath: "/proc/\(server)/cmdline").flatMap { try? $0.readToEnd() } ?? Data()
            if String(decoding: data, as: UTF8.self).contains(directory) { kill(server, SIGKILL) }
        }
    }
}
