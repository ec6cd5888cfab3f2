import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// Several machines on one list, as SHARED CATALOG means them: `shoebox` processes that share
/// nothing but the catalog (a PostgreSQL URI), the bucket and the list. Each command runs as a
/// new machine: a HOME and a TMPDIR of its own under `work`, no library folder, the bucket's
/// credentials, and `--catalog URI --store s3://…` on its command line.
final class SharedListMachines: @unchecked Sendable {
    let postgres: PostgresServer
    let uri: String
    let store: ObjectStoreBackend
    let work: URL
    /// More variables for every machine (SHOEBOX_CATALOG_RETRY_SECONDS, …).
    let environment: [String: String]
    private let counter = LockedCounter()
    private let lock = NSLock()
    private var started: [RunningShoebox] = []

    init(postgres: PostgresServer, store: ObjectStoreBackend, work: URL, environment: [String: String] = [:]) throws {
        self.postgres = postgres
        uri = try postgres.makeDatabase()
        self.store = store
        self.work = work
        self.environment = environment
    }

    /// The database's name (for psql).
    var database: String { String(uri.split(separator: "/").last ?? "") }

    /// `--catalog URI --store s3://BUCKET/PREFIX`.
    var arguments: [String] { ["--catalog", uri] + store.arguments }

    /// A new machine's environment: HOME and TMPDIR of its own, the bucket's credentials, and
    /// nothing from the test's own SHOEBOX_* variables.
    func newMachine() throws -> [String: String] {
        let root = work.appendingPathComponent("machine-\(counter.next())")
        let home = root.appendingPathComponent("home").path
        let temporary = root.appendingPathComponent("tmp").path
        for folder in [home, temporary] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        var variables = store.environment.merging(environment) { $1 }
        for name in ["SHOEBOX_CATALOG", "SHOEBOX_STORE", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION"] {
            variables[name] = ""
        }
        variables["HOME"] = home
        variables["TMPDIR"] = temporary
        return variables
    }

    /// `shoebox fetch LIST --json` plus `extra` on a new machine, its output drained as it comes.
    func startWorker(_ list: String, _ extra: [String] = []) throws -> RunningShoebox {
        let worker = RunningShoebox(try ShoeboxProcess.start(["fetch", list, "--json"] + arguments + extra, environment: try newMachine()))
        lock.withLock { started.append(worker) }
        return worker
    }

    /// kill -9 of every worker still running (a test that stopped halfway leaves none behind).
    func killWorkers() {
        for worker in lock.withLock({ started }) where worker.process.isRunning { worker.killNow() }
    }

    /// `shoebox COMMAND …` with the catalog and the store, on a new machine, to its end.
    func run(_ command: [String]) throws -> ShoeboxProcess.Result {
        try ShoeboxProcess.run(command + arguments, environment: try newMachine())
    }

    /// psql's unaligned output for `sql` in the catalog's database.
    func psql(_ sql: String) throws -> String { try postgres.psql(sql, database: database) }

    /// A count from psql; -1 when the answer is no number.
    func count(_ sql: String) throws -> Int { Int(try psql(sql)) ?? -1 }

    /// Sources recorded so far (0 before a worker made the tables).
    func sourceCount() throws -> Int {
        guard try psql("SELECT to_regclass('sources') IS NOT NULL") == "t" else { return 0 }
        return try count("SELECT count(*) FROM sources")
    }

    /// `shoebox status LIST --json` on a new machine, parsed.
    func status(_ list: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let status = try ShoeboxProcess.run(["status", list, "--catalog", uri, "--json"], environment: try newMachine())
        XCTAssertEqual(status.status, 0, status.stderr, file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout,
                             file: file, line: line)
    }

    private final class LockedCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }
}

/// A started `shoebox` whose stdout and stderr are read as they come, on threads of their own:
/// a worker that prints thousands of result lines never blocks on a full pipe while the test
/// waits for another one (a worker stays until the whole list is done, so one blocked worker
/// would hold up the others for good).
final class RunningShoebox: @unchecked Sendable {
    let process: Process
    private let lock = NSLock()
    private let drained = DispatchGroup()
    private var out = Data()
    private var err = Data()

    init(_ started: (Process, Pipe, Pipe)) {
        process = started.0
        for (pipe, isOut) in [(started.1, true), (started.2, false)] {
            drained.enter()
            Thread.detachNewThread { [self] in
                let data = ShoeboxProcess.readAll(pipe.fileHandleForReading)
                lock.withLock { if isOut { out = data } else { err = data } }
                drained.leave()
            }
        }
    }

    var pid: pid_t { process.processIdentifier }

    /// kill -9 now; true when the signal ended it (false: it had already finished).
    @discardableResult
    func killNow() -> Bool {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// Waits at most `timeout` seconds for the end (killed after that: `ended` false) and
    /// returns its output.
    func finish(timeout: Double) -> (ended: Bool, result: ShoeboxProcess.Result) {
        let ended = ShoeboxProcess.waitForExit(process, timeout: timeout)
        return (ended, output)
    }

    /// Its output once it ended (killed or not).
    var output: ShoeboxProcess.Result {
        process.waitUntilExit()
        drained.wait()
        return lock.withLock {
            ShoeboxProcess.Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                                  stderr: String(decoding: err, as: UTF8.self))
        }
    }
}
