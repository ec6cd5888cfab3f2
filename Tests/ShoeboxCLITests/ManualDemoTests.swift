import XCTest

/// samples/demo.sh, the README's first command, run end to end with the built
/// binary (SHOEBOX=... skips the package install and the release build).
final class ManualDemoTests: XCTestCase {
    func testDemoArchivesTheSamplesWritesTheGalleryAndStopsItsServer() throws {
        let work = try makeTemporaryDirectory(self)
        let library = work.appendingPathComponent("library")
        let result = try ManualTool.run("bash", [ManualTool.path("samples/demo.sh"), library.path], in: work,
                                        environment: ["SHOEBOX": ShoeboxProcess.executable.path, "TMPDIR": work.path, "NO_COLOR": "1"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        for command in ["fetch", "inspect", "thumbs", "gallery", "verify"] {
            XCTAssertTrue(result.stdout.contains("$ shoebox \(command) "), "the demo did not run \(command)")
        }
        XCTAssertFalse(result.stdout.contains("SKIPPED"), result.stdout)
        let originals = try XCTUnwrap(FileManager.default.enumerator(atPath: library.appendingPathComponent("originals").path))
            .compactMap { $0 as? String }.filter { $0.contains(".") }
        let photos = try FileManager.default.contentsOfDirectory(atPath: ManualTool.path("samples/photos"))
        XCTAssertEqual(originals.count, photos.count, "\(originals)")
        let gallery = library.appendingPathComponent("gallery/index.html").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: gallery))
        XCTAssertTrue(result.stdout.contains("Gallery:  \(gallery)"), result.stdout)
        // Each photo's page says what the camera recorded, exposure included (from the catalog).
        let pages = library.appendingPathComponent("gallery/photos").path
        let text = try FileManager.default.contentsOfDirectory(atPath: pages)
            .map { try String(contentsOfFile: pages + "/" + $0, encoding: .utf8) }.joined()
        XCTAssertTrue(text.contains("<dt>Exposure</dt><dd>1/250 s · f/8 · ISO 100 · 35 mm</dd>"), "oslo-fjord.jpg's exposure")
        XCTAssertTrue(text.contains("<dt>Exposure</dt><dd>1/60 s · f/1.6 · ISO 800 · 6.06 mm</dd>"), "manhattan.heic's exposure")
        XCTAssertTrue(text.contains("(dated from the server&#39;s Last-Modified header, not the camera)"), "scanned-print.jpg has no EXIF")

        // The failures on purpose were reported, and the server is gone afterwards.
        XCTAssertTrue(result.stderr.contains("lost-in-the-move.jpg") && result.stderr.contains("expired-link.jpg"), result.stderr)
        let port = try XCTUnwrap(result.stdout.components(separatedBy: "with port ").last?.prefix { $0.isNumber })
        let probe = try ManualTool.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5",
                                                "http://127.0.0.1:\(port)/photos/garden.jpg"])
        XCTAssertEqual(probe.stdout, "000", "the sample server still answers on port \(port)")
    }

    func testDemoRefusesALibraryThatIsNotEmpty() throws {
        let work = try makeTemporaryDirectory(self)
        try Data("x".utf8).write(to: work.appendingPathComponent("something"))
        let result = try ManualTool.run("bash", [ManualTool.path("samples/demo.sh"), work.path], in: work,
                                        environment: ["SHOEBOX": ShoeboxProcess.executable.path, "TMPDIR": work.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("is not empty"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path), ["something"], "nothing else written")
    }
}
