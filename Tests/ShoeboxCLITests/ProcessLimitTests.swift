import Foundation
import XCTest

/// Under a process limit (a container's pids limit) the system refuses threads; the
/// commands go on with the threads they got. Before, `fetch` and `verify -j 16` under
/// a limit of 3 waited forever for threads that never started.
final class ProcessLimitTests: XCTestCase {
    /// `shoebox ARGS` as user nobody, allowed `processes` processes and threads in all
    /// (needs root, as the other tests that mount file systems do); nil if it hung.
    private func runLimited(_ shoebox: String, _ arguments: [String], processes: Int) throws -> ShoeboxProcess.Result? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups",
                             "/usr/bin/prlimit", "--nproc=\(processes)", shoebox] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.removeValue(forKey: "SHOEBOX_LIBRARY")
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard ShoeboxProcess.waitForExit(process, timeout: 60) else { return nil }
        return ShoeboxProcess.waitCapturing(process, out: out, err: err)
    }

    func testFetchAndVerifyFinishWhenTheSystemRefusesThreads() throws {
        let server = try startFixtureServer()
        let folder = try makeTemporaryDirectory(self)
        // A copy nobody can run wherever the build folder is.
        let shoebox = folder.appendingPathComponent("shoebox").path
        try FileManager.default.copyItem(atPath: ShoeboxProcess.executable.path, toPath: shoebox)
        let library = folder.appendingPathComponent("library").path
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        XCTAssertEqual(chown(library, 65534, 65534), 0, "needs root: \(String(cString: strerror(errno)))")
        let list = folder.appendingPathComponent("list.txt").path
        let urls = (0..<20).map { server.url("/photo/limit\($0)?seed=limit\($0)") }
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)

        let fetch = try XCTUnwrap(runLimited(shoebox, ["fetch", list, "--library", library, "-j", "16"], processes: 3),
                                  "fetch under a limit of 3 processes did not finish in 60 s")
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        XCTAssertTrue(fetch.stderr.contains("20 URLs: 20 stored"), fetch.stderr)

        let verify = try XCTUnwrap(runLimited(shoebox, ["verify", "--library", library, "-j", "16"], processes: 3),
                                   "verify -j 16 under a limit of 3 processes did not finish in 60 s")
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertTrue(verify.stderr.contains("20 originals checked"), verify.stderr)
        let threads = verify.stderr.components(separatedBy: " GB/s on ").last?.split(separator: " ").first.flatMap { Int($0) }
        XCTAssertNotNil(threads, verify.stderr)
        XCTAssertLessThan(threads ?? 16, 16, "the summary says how many threads hashed, not how many were asked for")
    }
}
