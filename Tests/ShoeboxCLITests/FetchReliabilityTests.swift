import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// The reliability suite's fetch cases that need a small or read-only file system:
/// a disk that fills up mid-run, a read-only library, an unwritable catalog.
final class FetchReliabilityTests: XCTestCase {
    private func writeList(_ urls: [String], in folder: URL) throws -> String {
        let list = folder.appendingPathComponent("list-\(UUID().uuidString).txt").path
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return list
    }

    func testDiskFillingUpMidRunIsAClearErrorKeepsNoPartialAndALaterRunCompletes() throws {
        try checkDiskFillingUp(bodyBytes: 300_000, diskKilobytes: 1024)
    }

    /// Bodies over one 512 KiB buffer: the disk fills up in a write queued off the network thread.
    func testDiskFillingUpDuringAQueuedDirectWriteIsTheSameClearError() throws {
        try checkDiskFillingUp(bodyBytes: 1_600_000, diskKilobytes: 4096)
    }

    private func checkDiskFillingUp(bodyBytes: Int, diskKilobytes: Int) throws {
        let server = try startFixtureServer()
        let disk = try SmallFilesystem(kilobytes: diskKilobytes, test: self)
        let work = try makeTemporaryDirectory(self)
        let library = disk.path + "/library"
        let urls = (0..<6).map { server.url("/big/full-\($0)?size=\(bodyBytes + $0)&cl=1") }
        let list = try writeList(urls, in: work)

        let full = try ShoeboxProcess.run(["fetch", list, "--library", library, "--jobs", "2", "--json"])
        XCTAssertEqual(full.status, 4, full.stderr)
        XCTAssertTrue(full.stderr.contains("no space left on the device"), full.stderr)
        XCTAssertTrue(full.stderr.contains("6 URLs: "), "URLs never started are counted too: \(full.stderr)")
        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 0, "no partial original, catalog consistent: " + verify.stdout + verify.stderr)
        let stored = try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true).countOriginals()
        XCTAssertLessThan(stored, 6)
        let records = FetchRunner.parseLines(full.stdout)
        XCTAssertEqual(records.filter { $0["outcome"] as? String == "stored" }.count, stored, "stored means recorded")
        for record in records where record["outcome"] as? String == "failed" {
            let reason = record["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("space") || reason.contains("the run stopped"), "a failure says why: \(reason)")
        }

        try SmallFilesystem.run("/usr/bin/mount", ["-o", "remount,size=\(diskKilobytes * 12)k", disk.path])
        let later = try ShoeboxProcess.run(["fetch", list, "--library", library, "--json"])
        XCTAssertEqual(later.status, 0, later.stderr)
        XCTAssertEqual(try SQLiteCatalog(path: library + "/catalog.sqlite", readOnly: true).countOriginals(), 6)
        let final = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(final.status, 0, final.stdout + final.stderr)
        XCTAssertEqual(final.stdout, "")
    }

    func testFetchIntoAReadOnlyLibraryFailsWithUnusableStatusAndChangesNothing() throws {
        let server = try startFixtureServer()
        let disk = try SmallFilesystem(kilobytes: 2048, test: self)
        let work = try makeTemporaryDirectory(self)
        let library = disk.path + "/library"
        let first = try ShoeboxProcess.run(["fetch", try writeList([server.url("/photo/ro-1?seed=1")], in: work), "--library", library])
        XCTAssertEqual(first.status, 0, first.stderr)
        try disk.remount(readOnly: true)
        let before = snapshotFiles(in: library)

        let result = try ShoeboxProcess.run(["fetch", try writeList([server.url("/photo/ro-2?seed=2")], in: work), "--library", library])
        XCTAssertEqual(result.status, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains(library), result.stderr)
        XCTAssertTrue(result.stderr.lowercased().contains("read-only"), result.stderr)
        XCTAssertEqual(snapshotFiles(in: library), before)
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library]).status, 0)
    }

    func testFetchWithAnUnwritableCatalogFailsWithUnusableStatusAndChangesNothing() throws {
        let server = try startFixtureServer()
        let work = try makeTemporaryDirectory(self)
        let library = work.appendingPathComponent("library").path
        let first = try ShoeboxProcess.run(["fetch", try writeList([server.url("/photo/cat-1?seed=1")], in: work), "--library", library])
        XCTAssertEqual(first.status, 0, first.stderr)
        let catalog = library + "/catalog.sqlite"
        // Only the catalog file becomes read-only: a read-only bind mount of it onto itself.
        try SmallFilesystem.run("/usr/bin/mount", ["--bind", catalog, catalog])
        defer { try? SmallFilesystem.run("/usr/bin/umount", ["-l", catalog]) }
        try SmallFilesystem.run("/usr/bin/mount", ["-o", "remount,ro,bind", catalog])
        let before = snapshotFiles(in: library + "/originals")

        let result = try ShoeboxProcess.run(["fetch", try writeList([server.url("/photo/cat-2?seed=2")], in: work), "--library", library])
        XCTAssertEqual(result.status, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot write catalog \(catalog)"), result.stderr)
        XCTAssertEqual(snapshotFiles(in: library + "/originals"), before)
    }
}
