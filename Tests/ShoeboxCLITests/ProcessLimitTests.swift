import Foundation
import XCTest

/// Under a process limit (a container's pids limit) the system refuses threads; verify
/// goes on with the threads it got. Before, `verify -j 32` under a limit of 8 waited
/// forever for threads that never started.
final class ProcessLimitTests: XCTestCase {
    /// A user id no account has: the limit counts every process of the user, and nobody's
    /// may be taken by others (nginx's workers run as nobody).
    private let user = 61_000 + Int.random(in: 0..<4_000)

    /// `shoebox ARGS` as `user`, allowed `processes` processes and threads in all
    /// (needs root, as the other tests that mount file systems do); nil if it hung.
    private func runLimited(_ shoebox: String, _ arguments: [String], processes: Int) throws -> ShoeboxProcess.Result? {
        let command = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups",
                       "/usr/bin/prlimit", "--nproc=\(processes)", shoebox]
        let (process, out, err) = try ShoeboxProcess.start(arguments, command: command)
        guard ShoeboxProcess.waitForExit(process, timeout: 60) else { return nil }
        return ShoeboxProcess.waitCapturing(process, out: out, err: err)
    }

    func testVerifyFinishesWhenTheSystemRefusesThreads() throws {
        let server = try startFixtureServer()
        let folder = try makeTemporaryDirectory(self)
        // A copy any user can run wherever the build folder is.
        let shoebox = folder.appendingPathComponent("shoebox").path
        try FileManager.default.copyItem(atPath: ShoeboxProcess.executable.path, toPath: shoebox)
        let library = folder.appendingPathComponent("library").path
        let urls = (0..<20).map { server.url("/photo/limit\($0)?seed=limit\($0)") }
        let fetch = try ShoeboxProcess.run(["fetch", "--library", library] + urls.flatMap { ["--url", $0] })
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let owner = try ManualTool.run("chown", ["-R", "\(user):\(user)", library])
        XCTAssertEqual(owner.status, 0, "needs root: \(owner.stderr)")

        let verify = try XCTUnwrap(runLimited(shoebox, ["verify", "--library", library, "-j", "32"], processes: 8),
                                   "verify -j 32 under a limit of 8 processes did not finish in 60 s")
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertTrue(verify.stderr.contains("20 originals checked"), verify.stderr)
        let threads = verify.stderr.components(separatedBy: " GB/s on ").last?.split(separator: " ").first.flatMap { Int($0) }
        XCTAssertGreaterThan(threads ?? 0, 0, "the summary says how many threads hashed: \(verify.stderr)")
    }
}
