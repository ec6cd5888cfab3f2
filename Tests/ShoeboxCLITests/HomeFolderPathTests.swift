import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxCLI

/// One rule for "~" in every path option and SHOEBOX_LIBRARY: a leading "~" or "~/" is
/// $HOME, as a shell would expand it; a "~" elsewhere is an ordinary character. Before,
/// fetch crashed (SIGILL, exit 132) on both `-L '~/x'` and `-L 'a/~/b'`, gallery expanded
/// `-o '~/g'` and thumbs took `-L '~/x'` literally.
final class HomeFolderPathTests: XCTestCase {
    private func photo(_ server: FixtureServer, _ name: String) -> String {
        server.url("/photo/\(name)?seed=\(name)&date=2023:03:01%2010:00:00")
    }

    /// `shoebox ARGS` run in `folder` with HOME set to `home`.
    private func run(_ arguments: [String], in folder: String, home: String,
                     environment: [String: String] = [:]) throws -> ShoeboxProcess.Result {
        let command = ["/usr/bin/env", "-C", folder, ShoeboxProcess.executable.path]
        let (process, out, err) = try ShoeboxProcess.start(arguments, environment: ["HOME": home].merging(environment) { $1 },
                                                           command: command)
        XCTAssertTrue(ShoeboxProcess.waitForExit(process, timeout: 120), "shoebox \(arguments) did not finish in 120 s")
        return ShoeboxProcess.waitCapturing(process, out: out, err: err)
    }

    private func isFile(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func testLeadingTildeIsTheHomeFolderInEveryCommand() throws {
        let server = try startFixtureServer()
        let home = try makeTemporaryDirectory(self).path
        let elsewhere = try makeTemporaryDirectory(self).path
        let fetch = try run(["fetch", "-L", "~/x", "--url", photo(server, "t1")], in: elsewhere, home: home)
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        XCTAssertTrue(isFile(home + "/x/catalog.sqlite"), "the library is in HOME: \(fetch.stderr)")
        XCTAssertFalse(isFile(elsewhere + "/~"), "no folder named '~' in the current folder")

        let fromEnvironment = try run(["fetch", "--url", photo(server, "t2")], in: elsewhere, home: home,
                                      environment: ["SHOEBOX_LIBRARY": "~/x"])
        XCTAssertEqual(fromEnvironment.status, 0, fromEnvironment.stderr)
        let inspect = try run(["inspect", "-L", "~/x", "--json"], in: elsewhere, home: home)
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertEqual(inspect.stdout.components(separatedBy: "\"SourceFile\"").count - 1, 2, "both photos: \(inspect.stdout)")
        let thumbs = try run(["thumbs", "-L", "~/x", "--size", "64"], in: elsewhere, home: home)
        XCTAssertEqual(thumbs.status, 0, thumbs.stderr)
        XCTAssertTrue(isFile(home + "/x/thumbnails/64"), thumbs.stderr)
        let gallery = try run(["gallery", "-L", "~/x", "-o", "~/g"], in: elsewhere, home: home)
        XCTAssertEqual(gallery.status, 0, gallery.stderr)
        XCTAssertTrue(isFile(home + "/g/index.html"), gallery.stdout + gallery.stderr)
        let verify = try run(["verify", "-L", "~/x"], in: elsewhere, home: home)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        let reindex = try run(["reindex", "-L", "~/x", "--force"], in: elsewhere, home: home)
        XCTAssertEqual(reindex.status, 0, reindex.stdout + reindex.stderr)
        XCTAssertTrue(reindex.stdout.contains("originals: 2 "), reindex.stdout)
    }

    func testTheRule() throws {
        func expand(_ path: String, _ environment: [String: String]) throws -> String {
            try HomeFolderPath.expand(path, option: "library", environment: environment)
        }
        XCTAssertEqual(try expand("~", ["HOME": "/home/ann"]), "/home/ann")
        XCTAssertEqual(try expand("~/", ["HOME": "/home/ann/"]), "/home/ann/")
        XCTAssertEqual(try expand("~/Photos", ["HOME": "/home/ann/"]), "/home/ann/Photos")
        XCTAssertEqual(try expand("~/Photos", ["HOME": "/"]), "/Photos")
        XCTAssertEqual(try expand("~x/Photos", ["HOME": "/home/ann"]), "./~x/Photos")
        XCTAssertEqual(try expand("a/~/b", ["HOME": "/home/ann"]), "a/~/b")
        XCTAssertEqual(try expand("/srv/~", ["HOME": "/home/ann"]), "/srv/~")
        let entry = try XCTUnwrap(getpwuid(getuid()))
        XCTAssertEqual(try expand("~/p", [:]), String(cString: entry.pointee.pw_dir) + "/p", "no HOME: the password database's")
        XCTAssertEqual(try expand("~/p", ["HOME": ""]), String(cString: entry.pointee.pw_dir) + "/p", "an empty HOME is none")
    }

    func testTildeElsewhereIsAnOrdinaryCharacter() throws {
        let server = try startFixtureServer()
        let home = try makeTemporaryDirectory(self).path
        let folder = try makeTemporaryDirectory(self).path
        for library in ["a/~/b", "~x", "~root", folder + "/c/~"] {
            let fetch = try run(["fetch", "-L", library, "--url", photo(server, "t3")], in: folder, home: home)
            XCTAssertEqual(fetch.status, 0, "\(library): \(fetch.stderr)")
            let root = library.hasPrefix("/") ? library : folder + "/" + library
            XCTAssertTrue(isFile(root + "/catalog.sqlite"), "\(library) is a literal folder: \(fetch.stderr)")
            let thumbs = try run(["thumbs", "-L", library, "--size", "64"], in: folder, home: home)
            XCTAssertEqual(thumbs.status, 0, "\(library): \(thumbs.stderr)")
            let gallery = try run(["gallery", "-L", library, "-o", library + "-g"], in: folder, home: home)
            XCTAssertEqual(gallery.status, 0, "\(library): \(gallery.stderr)")
            XCTAssertTrue(isFile(root + "-g/index.html"), "\(library)-g is a literal folder: \(gallery.stderr)")
            let verify = try run(["verify", "-L", library], in: folder, home: home)
            XCTAssertEqual(verify.status, 0, "\(library): \(verify.stdout) \(verify.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home), [], "nothing went to HOME")
    }
}
