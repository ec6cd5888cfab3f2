import Foundation
import ShoeboxTestSupport
import XCTest

/// A folder under originals/ that cannot be listed (its permissions) is reported by verify
/// and reindex. Before, both passed it over as if empty: reindex dropped the originals in
/// it from the catalog with exit status 0, and verify missed unknown files there.
/// Run as a user without root's override of permissions (needs root to switch user).
final class UnreadableFolderTests: XCTestCase {
    private let user = 61_000 + Int.random(in: 0..<4_000)

    /// `shoebox ARGS` run as `user`.
    private func runAsUser(_ shoebox: String, _ arguments: [String]) throws -> ShoeboxProcess.Result {
        let command = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups", shoebox]
        let (process, out, err) = try ShoeboxProcess.start(arguments, command: command)
        XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 60), "shoebox \(arguments) did not finish in 60 s")
        return ShoeboxProcess.waitCapturing(process, out: out, err: err)
    }

    func testVerifyAndReindexReportAFolderTheyCannotList() throws {
        try checkReported(folderMode: 0o000)
    }

    /// Read without search permission (`chmod -R 644`): the names list, but no entry can be
    /// looked at. Before, each entry's failed lstat was passed over as if it were not there.
    func testVerifyAndReindexReportAFolderTheyCanListButNotEnter() throws {
        try checkReported(folderMode: 0o644)
    }

    private func checkReported(folderMode: mode_t) throws {
        let server = try startFixtureServer()
        let folder = try makeTemporaryDirectory(self)
        let shoebox = folder.appendingPathComponent("shoebox").path
        try FileManager.default.copyItem(atPath: ShoeboxProcess.executable.path, toPath: shoebox)
        let library = folder.appendingPathComponent("library").path
        let urls = (0..<3).map { server.url("/photo/u\($0)?seed=u\($0)&date=2023:03:0\($0 + 1)%2010:00:00") }
        let fetch = try ShoeboxProcess.run(["fetch", "--library", library] + urls.flatMap { ["--url", $0] })
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let hidden = library + "/originals/2023/03/02"
        XCTAssertTrue(FileManager.default.createFile(atPath: hidden + "/stray.jpg", contents: Data("not catalogued".utf8)))
        let owner = try ManualTool.run("chown", ["-R", "\(user):\(user)", library])
        XCTAssertEqual(owner.status, 0, "needs root: \(owner.stderr)")
        XCTAssertEqual(chmod(hidden, folderMode), 0)

        let inspect = try runAsUser(shoebox, ["inspect", library + "/originals"])
        XCTAssertEqual(inspect.status, 1, "photos left out are not a clean inspect: \(inspect.stderr)")
        XCTAssertTrue(inspect.stderr.contains("inspect: cannot read folder \(hidden): Permission denied"), inspect.stderr)
        XCTAssertEqual(inspect.stdout.components(separatedBy: "  Format ").count - 1, 2, "the two readable photos: \(inspect.stdout)")

        let verify = try runAsUser(shoebox, ["verify", "--library", library])
        XCTAssertEqual(verify.status, 1, verify.stdout + verify.stderr)
        let verifyOutput = verify.stdout + verify.stderr
        XCTAssertTrue(verifyOutput.contains("originals/2023/03/02/") && verifyOutput.contains("could not be listed (Permission denied)"),
                      verifyOutput)

        let reindex = try runAsUser(shoebox, ["reindex", "--library", library, "--force"])
        XCTAssertEqual(reindex.status, 1, "a folder left out is not a clean rebuild: \(reindex.stdout) \(reindex.stderr)")
        XCTAssertTrue(reindex.stdout.contains("unreadable originals/2023/03/02/: folder could not be listed (Permission denied)"),
                      reindex.stdout)
        XCTAssertTrue(reindex.stdout.contains("fix its permissions and run reindex again"), reindex.stdout)
        XCTAssertTrue(reindex.stdout.contains("originals: 2 "), reindex.stdout)
        XCTAssertFalse(reindex.stdout.contains("whose file is not in originals/"),
                       "the original in the unlisted folder is reported with its folder, not as gone: \(reindex.stdout)")

        XCTAssertEqual(chmod(hidden, 0o755), 0)
        XCTAssertEqual(unlink(hidden + "/stray.jpg"), 0)
        let again = try runAsUser(shoebox, ["reindex", "--library", library, "--force"])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(again.stdout.contains("originals: 3 (3 from the journal"), "the journal kept the left-out original: \(again.stdout)")
        let clean = try runAsUser(shoebox, ["verify", "--library", library])
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
    }
}
