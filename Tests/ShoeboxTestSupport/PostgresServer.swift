import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL 15 server for tests, on 127.0.0.1 and a free port, in a fresh
/// temporary folder, started by Resources/postgres/start-postgres.sh (initdb, then
/// `pg_ctl -w start`). PostgreSQL refuses to run as root: as root the folder is given to
/// the `postgres` system user and initdb/pg_ctl run as it (`runuser -u postgres --`).
/// About 1 s and 70 MB to start: start one per test class (class setUp / tearDown) and give
/// each test its own database (`createDatabase`).
///
/// The script stays in the foreground with its stdin a pipe from here: `stop()` (or deinit)
/// stops the server (`pg_ctl stop -m immediate`) and removes the folder; if this process
/// dies, the pipe closes and the script stops the server itself.
public final class PostgresServer: @unchecked Sendable {
    /// Superuser `postgres`, trust authentication (no password).
    public let user = "postgres"
    public let host = "127.0.0.1"
    public let port: Int
    /// The temporary folder: data/ (the cluster), server.log, the Unix socket.
    public let directory: String
    public static let binaries = ProcessInfo.processInfo.environment["PG_BIN"] ?? "/usr/lib/postgresql/15/bin"

    private let process: Process
    private let stdinPipe: Pipe
    private let lock = NSLock()
    private var stopped = false

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Whether PostgreSQL 15's binaries are installed (tests skip otherwise).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: binaries + "/initdb")
            && FileManager.default.isExecutableFile(atPath: binaries + "/pg_ctl")
    }

    /// The start script shipped as a resource (bash SCRIPT DIR also works by hand).
    public static var scriptPath: String {
        if let url = Bundle.module.url(forResource: "start-postgres", withExtension: "sh", subdirectory: "postgres") {
            return url.path
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/postgres/start-postgres.sh").path
    }

    /// Starts a server and waits until it accepts connections (at most `timeout` s).
    public init(timeout: Double = 60) throws {
        // /tmp rather than $TMPDIR: the postgres user must be able to reach the folder.
        var template = Array("/tmp/shoebox-postgres.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw StartFailure(description: "cannot make a temporary folder: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.scriptPath, directory, "--until-stdin-closes"]
        stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw StartFailure(description: "cannot run bash \(Self.scriptPath): \(error)")
        }

        // The script prints the URI once the server accepts connections, or exits.
        let reader = stdoutPipe.fileHandleForReading
        let deadline = Date().addingTimeInterval(timeout)
        var output = Data()
        var line: String?
        while line == nil && Date() < deadline {
            var poller = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
            if let newline = output.firstIndex(of: UInt8(ascii: "\n")) {
                line = String(decoding: output[..<newline], as: UTF8.self)
            }
        }
        let prefix = "postgres://postgres@127.0.0.1:"
        guard let line, line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) else {
            try? stdinPipe.fileHandleForWriting.close()
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let errors = String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try? FileManager.default.removeItem(atPath: directory)
            self.port = 0
            stopped = true
            throw StartFailure(
                description: "PostgreSQL did not start within \(timeout) s (script output: "
                    + "'\(String(decoding: output, as: UTF8.self))', errors: '\(errors)')")
        }
        self.port = port
    }

    deinit { stop() }

    /// A libpq URI for `database` on this server, as its superuser.
    public func uri(database: String = "postgres") -> String {
        "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// Creates an empty database (optionally with an ICU default collation such as "en-US",
    /// to check that ordering does not depend on it).
    public func createDatabase(_ name: String, icuLocale: String? = nil) throws {
        var sql = "CREATE DATABASE \"\(name)\""
        if let icuLocale { sql += " TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '\(icuLocale)' LOCALE 'C.UTF-8'" }
        _ = try psql(sql, database: "postgres")
    }

    /// A fresh database with a unique name; returns its URI.
    public func makeDatabase(icuLocale: String? = nil) throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try createDatabase(name, icuLocale: icuLocale)
        return uri(database: name)
    }

    /// Runs SQL with psql (independent of the code under test); returns its unaligned output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binaries + "/psql")
        process.arguments = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", uri(database: database), "-c", sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw StartFailure(description: "psql \(sql) failed: \(errorText)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`: connections cut, as by a crash or
    /// a network cut), keeping its data, until `resume`.
    public func pause() throws {
        try runScript(["stop", directory])
    }

    /// Starts a paused server again, on the same port.
    public func resume() throws {
        try runScript(["resume", directory, String(port)])
    }

    /// Runs the script and waits for it with waitpid: not Foundation's Process, which learns
    /// of a child's end when a descriptor it inherited closes, and the server `pg_ctl start`
    /// leaves running inherits it too (the wait would last as long as the server).
    private func runScript(_ arguments: [String]) throws {
        let argv = ["/bin/bash", Self.scriptPath] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw StartFailure(description: "cannot run bash: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw StartFailure(description: "start-postgres.sh \(arguments.joined(separator: " ")) failed (wait status \(status))")
        }
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`) and removes the folder. Safe to call twice.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        let stopper = Process()
        stopper.executableURL = URL(fileURLWithPath: "/bin/bash")
        stopper.arguments = [Self.scriptPath, "stop", directory]
        if (try? stopper.run()) != nil { stopper.waitUntilExit() }
        try? stdinPipe.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
