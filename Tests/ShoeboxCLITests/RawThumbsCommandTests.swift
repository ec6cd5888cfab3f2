import Foundation
import XCTest

/// `shoebox thumbs` on raw originals, as a user runs it: LibRaw in a child process whose crash is
/// one failed original with a plain message, never the Swift runtime's crash report.
final class RawThumbsCommandTests: XCTestCase {
    /// The RawThumbnail fuzz target's seeds: four small DNGs LibRaw decodes.
    private func rawLibrary() throws -> (library: String, count: Int) {
        let folder = try makeTemporaryDirectory(self)
        let raws = folder.appendingPathComponent("raws")
        try FileManager.default.createDirectory(at: raws, withIntermediateDirectories: true)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let seed = Process()
        seed.executableURL = URL(fileURLWithPath: "/bin/bash")
        seed.arguments = [repository.appendingPathComponent("Tests/Fuzz/RawThumbnail/seed.sh").path, raws.path]
        try seed.run()
        seed.waitUntilExit()
        XCTAssertEqual(seed.terminationStatus, 0)
        let library = folder.appendingPathComponent("lib").path
        let imported = try ShoeboxProcess.run(["import", raws.path, "--library", library])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        return (library, try FileManager.default.contentsOfDirectory(atPath: raws.path).count)
    }

    func testRawThumbnailsAreMade() throws {
        let (library, count) = try rawLibrary()
        XCTAssertEqual(count, 4)
        let run = try ShoeboxProcess.run(["thumbs", "--library", library, "-s", "256"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("0 failed; 4 thumbnails made"), run.stderr)
    }

    func testALibRawCrashIsOneFailureWithAPlainMessage() throws {
        let (library, _) = try rawLibrary()
        let run = try ShoeboxProcess.run(["thumbs", "--library", library, "-s", "256"],
                                         environment: ["SHOEBOX_LIBRAW_FAULT": "crash"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(run.stderr.components(separatedBy: "LibRaw crashed on it (signal 6").count - 1, 4, run.stderr)
        XCTAssertFalse(run.stderr.contains("Program crashed"), "the Swift runtime's crash handler ran in the child: \(run.stderr)")
        XCTAssertFalse(run.stderr.contains("Backtrace"), run.stderr)
    }
}
