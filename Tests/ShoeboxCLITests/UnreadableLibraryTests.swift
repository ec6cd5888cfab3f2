import Foundation
import ShoeboxTestSupport
import XCTest

/// A library this user may not read was called "not a Shoebox library" (verify, reindex)
/// or said to have "no catalog.sqlite … rebuild it with 'shoebox reindex'" (inspect,
/// thumbs, gallery): advice that would rebuild a catalog that is fine. Every command now
/// says "permission denied" and who owns it, with exit status 4. Run as `nobody` (root
/// reads everything), so the test needs root and setpriv.
final class UnreadableLibraryTests: XCTestCase {
    private let setpriv = "/usr/bin/setpriv"

    private func runAsNobody(_ shoebox: String, _ arguments: [String]) throws -> ShoeboxProcess.Result {
        let command = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", shoebox]
        let (process, out, err) = try ShoeboxProcess.start(arguments, command: command)
        XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 60), "shoebox \(arguments) did not finish in 60 s")
        return ShoeboxProcess.waitCapturing(process, out: out, err: err)
    }

    /// A library made by root, and a copy of the binary that nobody may run.
    private func setUpLibrary() throws -> (folder: String, shoebox: String, library: String, server: FixtureServer) {
        XCTAssertEqual(getuid(), 0, "needs root to make files nobody cannot read")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: setpriv), "needs setpriv (util-linux)")
        let server = try startFixtureServer()
        let folder = try makeTemporaryDirectory(self).path
        XCTAssertEqual(chmod(folder, 0o755), 0)
        let shoebox = folder + "/shoebox"
        try FileManager.default.copyItem(atPath: ShoeboxProcess.executable.path, toPath: shoebox)
        XCTAssertEqual(chmod(shoebox, 0o755), 0)
        let library = folder + "/library"
        let fetch = try ShoeboxProcess.run(["fetch", "--library", library, "--url", server.url("/photo/p1?seed=p1")])
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let check = try runAsNobody(shoebox, ["--version"])
        XCTAssertEqual(check.status, 0, "nobody cannot run \(shoebox): \(check.stderr)")
        return (folder, shoebox, library, server)
    }

    private func assertPermissionDenied(_ shoebox: String, library: String, server: FixtureServer, says expected: String,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        let commands: [[String]] = [
            ["verify", "-L", library], ["reindex", "-L", library, "--force"], ["inspect", "-L", library],
            ["thumbs", "-L", library], ["gallery", "-L", library], ["fetch", "-L", library, "--url", server.url("/photo/p2?seed=p2")],
        ]
        for arguments in commands {
            let result = try runAsNobody(shoebox, arguments)
            let command = arguments[0]
            XCTAssertEqual(result.status, 4, "\(command): \(result.stderr)", file: file, line: line)
            XCTAssertTrue(result.stderr.contains("shoebox: \(command): permission denied: \(expected)"), "\(command): \(result.stderr)",
                          file: file, line: line)
            XCTAssertTrue(result.stderr.contains("cannot be read by nobody"), "\(command): \(result.stderr)", file: file, line: line)
            for misleading in ["not a Shoebox library", "no catalog", "reindex --library", "does not exist"] {
                XCTAssertFalse(result.stderr.contains(misleading), "\(command) says '\(misleading)': \(result.stderr)", file: file, line: line)
            }
        }
    }

    func testALibraryNobodyMayReadIsReportedAsPermissionDeniedWithItsOwner() throws {
        let (_, shoebox, library, server) = try setUpLibrary()
        let before = snapshotFiles(in: library)
        XCTAssertEqual(chmod(library, 0o700), 0)
        try assertPermissionDenied(shoebox, library: library, server: server, says: "library \(library) is owned by root (mode 0700)")
        XCTAssertEqual(chmod(library, 0o755), 0)
        XCTAssertEqual(snapshotFiles(in: library), before, "nothing in the library changed")
    }

    func testAFolderAboveTheLibraryNobodyMayEnter() throws {
        let (folder, shoebox, library, server) = try setUpLibrary()
        let outer = folder + "/outer"
        XCTAssertEqual(mkdir(outer, 0o755), 0)
        XCTAssertEqual(rename(library, outer + "/library"), 0)
        XCTAssertEqual(chmod(outer, 0o700), 0)
        try assertPermissionDenied(shoebox, library: outer + "/library", server: server,
                                   says: "folder above library \(outer) is owned by root (mode 0700)")
    }

    func testACatalogNobodyMayRead() throws {
        let (_, shoebox, library, _) = try setUpLibrary()
        XCTAssertEqual(chmod(library + "/catalog.sqlite", 0o600), 0)
        for arguments in [["inspect", "-L", library], ["thumbs", "-L", library], ["gallery", "-L", library], ["verify", "-L", library]] {
            let result = try runAsNobody(shoebox, arguments)
            XCTAssertEqual(result.status, 4, "\(arguments[0]): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("permission denied: catalog \(library)/catalog.sqlite is owned by root (mode 0600)"),
                          "\(arguments[0]): \(result.stderr)")
        }
    }
}
