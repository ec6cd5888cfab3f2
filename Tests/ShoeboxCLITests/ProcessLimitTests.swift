import Foundation
import ShoeboxTestSupport
import XCTest

/// Under a process limit (a container's pids limit) the system refuses threads; verify,
/// fetch and inspect go on with the threads they got. Before, `verify -j 32` under a
/// limit of 8 waited forever for threads that never started, and fetch (limits of 2 to
/// 10) and inspect (a limit of 1) hung inside Dispatch, which retries a refused thread
/// forever.
final class ProcessLimitTests: XCTestCase {
    /// A user id no account has: the limit counts every process of the user, and nobody's
    /// may be taken by others (nginx's workers run as nobody).
    private let user = 61_000 + Int.random(in: 0..<4_000)

    /// `shoebox` run as `user`, allowed `processes` processes and threads in all
    /// (needs root, as the other tests that mount file systems do).
    private func limited(_ shoebox: String, processes: Int) -> [String] {
        ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups",
         "/usr/bin/prlimit", "--nproc=\(processes)", shoebox]
    }

    /// `shoebox ARGS` under `limited`; nil if it hung.
    private func runLimited(_ shoebox: String, _ arguments: [String], processes: Int) throws -> ShoeboxProcess.Result? {
        let (process, out, err) = try ShoeboxProcess.start(arguments, command: limited(shoebox, processes: processes))
        guard ShoeboxProcess.waitForExit(process, timeout: 60) else { return nil }
        return ShoeboxProcess.waitCapturing(process, out: out, err: err)
    }

    /// A copy of shoebox any user can run (wherever the build folder is) and a library
    /// `user` owns: empty, or holding `urls` fetched beforehand.
    private func prepare(fetching urls: [String] = []) throws -> (shoebox: String, library: String) {
        let folder = try makeTemporaryDirectory(self)
        let shoebox = folder.appendingPathComponent("shoebox").path
        try FileManager.default.copyItem(atPath: ShoeboxProcess.executable.path, toPath: shoebox)
        let library = folder.appendingPathComponent("library").path
        if urls.isEmpty {
            try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: false)
        } else {
            let fetch = try ShoeboxProcess.run(["fetch", "--library", library] + urls.flatMap { ["--url", $0] })
            XCTAssertEqual(fetch.status, 0, fetch.stderr)
        }
        let owner = try ManualTool.run("chown", ["-R", "\(user):\(user)", library])
        XCTAssertEqual(owner.status, 0, "needs root: \(owner.stderr)")
        return (shoebox, library)
    }

    func testFetchFinishesWhenTheSystemRefusesThreads() throws {
        let server = try startFixtureServer()
        let (shoebox, library) = try prepare()
        // Photos fit one buffer; the 1.5 MB bodies (the same bytes each) take several,
        // hashed and written on the workers.
        let urls = (0..<12).map { server.url("/photo/nproc\($0)?seed=nproc\($0)") }
            + (0..<8).map { server.url("/big/nproc\($0)?size=1500000") }
        let arguments = ["fetch", "--library", library] + urls.flatMap { ["--url", $0] }
        let fetch = try XCTUnwrap(runLimited(shoebox, arguments, processes: 6),
                                  "fetch under a limit of 6 processes did not finish in 60 s")
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        XCTAssertTrue(fetch.stderr.contains("20 URLs: 13 stored, 7 duplicate"), fetch.stderr)
        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertTrue(verify.stderr.contains("13 originals checked"), verify.stderr)
    }

    func testCtrlCStopsAFetchThatGotOneThreadBesidesItsMain() throws {
        let server = try startFixtureServer()
        let (shoebox, library) = try prepare()
        let urls = (0..<300).map { server.url("/slow/cc\($0)?delay=0.1") }
        // The signal trap starts the first thread of a fetch, so it gets the one allowed.
        let (process, out, err) = try ShoeboxProcess.start(["fetch", "--library", library, "--jobs", "4"]
                                                           + urls.flatMap { ["--url", $0] },
                                                           command: limited(shoebox, processes: 2))
        let originals = library + "/originals"
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, (FileManager.default.enumerator(atPath: originals)?.allObjects.count ?? 0) < 5 {
            Thread.sleep(forTimeInterval: 0.02)
        }
        kill(process.processIdentifier, SIGINT)
        let ended = ShoeboxProcess.waitForExit(process, timeout: 30)
        let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
        XCTAssertTrue(ended, "Ctrl-C did not end the fetch in 30 s")
        XCTAssertEqual(result.status, 130, result.stderr)
        XCTAssertTrue(result.stderr.contains("interrupted"), result.stderr)
        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 0, verify.stderr)
    }

    func testInspectFinishesOnItsMainThreadAlone() throws {
        let server = try startFixtureServer()
        let (shoebox, library) = try prepare(fetching: (0..<12).map { server.url("/photo/single\($0)?seed=single\($0)") })
        let inspect = try XCTUnwrap(runLimited(shoebox, ["inspect", "--library", library, "--json"], processes: 1),
                                    "inspect under a limit of 1 process did not finish in 60 s")
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let objects = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(objects?.compactMap { $0["SourceFile"] as? String }.count, 12, inspect.stdout)
    }

    func testVerifyFinishesWhenTheSystemRefusesThreads() throws {
        let server = try startFixtureServer()
        let (shoebox, library) = try prepare(fetching: (0..<20).map { server.url("/photo/limit\($0)?seed=limit\($0)") })
        let verify = try XCTUnwrap(runLimited(shoebox, ["verify", "--library", library, "-j", "32"], processes: 8),
                                   "verify -j 32 under a limit of 8 processes did not finish in 60 s")
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertTrue(verify.stderr.contains("20 originals checked"), verify.stderr)
        let threads = verify.stderr.components(separatedBy: "B/s on ").last?.split(separator: " ").first.flatMap { Int($0) }
        // A worker that ran out of files exits and frees its slot, so over the run more than 8
        // may have started (this was flaky with 8 as the bound): the count is of threads that worked.
        XCTAssertTrue((1...32).contains(threads ?? 0), "the summary says how many of the 32 threads hashed: \(verify.stderr)")
    }
}
