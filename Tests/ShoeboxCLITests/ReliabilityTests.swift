import Foundation
import ShoeboxKit
import XCTest

/// The parts of the reliability suite that need no download: bit rot, full disk,
/// read-only and missing libraries, unwritable and corrupt catalogs, a running writer.
final class ReliabilityTests: XCTestCase {
    /// A library of `count` random "photos" (JPEG magic, then noise) under originals/, catalogued by `shoebox reindex`.
    private func makeLibrary(in folder: String, count: Int = 6, bytes: Int = 20_000) throws -> [String] {
        var paths: [String] = []
        for n in 0..<count {
            let path = "originals/2024/05/0\(n % 9 + 1)/photo-\(n).jpg"
            let absolute = folder + "/" + path
            try FileManager.default.createDirectory(atPath: (absolute as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            var generator = UInt64(n + 1) &* 0x9E37_79B9_7F4A_7C15
            let data = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((4..<bytes).map { _ in
                generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: generator >> 40)
            })
            XCTAssertTrue(FileManager.default.createFile(atPath: absolute, contents: data, attributes: [.posixPermissions: 0o444]))
            paths.append(path)
        }
        let result = try ShoeboxProcess.run(["reindex", "--library", folder])
        XCTAssertEqual(result.status, 0, result.stderr)
        return paths.sorted()
    }

    // MARK: Bit rot

    func testVerifyNamesFlippedTruncatedDeletedAndWritableOriginals() throws {
        let library = try makeTemporaryDirectory(self).path
        let paths = try makeLibrary(in: library)
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library]).status, 0)

        let flipped = library + "/" + paths[0]
        chmod(flipped, 0o644)
        var data = try Data(contentsOf: URL(fileURLWithPath: flipped))
        data[1234] ^= 0x10
        try data.write(to: URL(fileURLWithPath: flipped))
        chmod(flipped, 0o444)
        chmod(library + "/" + paths[1], 0o644)
        XCTAssertEqual(truncate(library + "/" + paths[1], 777), 0)
        chmod(library + "/" + paths[1], 0o444)
        try FileManager.default.removeItem(atPath: library + "/" + paths[2])
        chmod(library + "/" + paths[3], 0o664)

        let result = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("hash-mismatch \(paths[0]): ") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("size-mismatch \(paths[1]): 777 bytes") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("missing \(paths[2]): ") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("writable \(paths[3]): mode 664") }, result.stdout)
        XCTAssertTrue(result.stderr.contains("4 problems"), result.stderr)

        let json = try ShoeboxProcess.run(["verify", "--library", library, "--json"])
        XCTAssertEqual(json.status, 1)
        let objects = try json.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(Set(objects.compactMap { $0["kind"] as? String }), ["hash-mismatch", "size-mismatch", "missing", "writable"])
        XCTAssertEqual(Set(objects.compactMap { $0["path"] as? String }), Set(paths[0...3]))

        let quick = try ShoeboxProcess.run(["verify", "--library", library, "--quick"])
        XCTAssertEqual(quick.status, 1)
        XCTAssertFalse(quick.stdout.contains("hash-mismatch"), "--quick compares sizes only")
        XCTAssertTrue(quick.stdout.contains("size-mismatch \(paths[1])"))
    }

    // MARK: Catalog lost or corrupt

    func testReindexGivesBackTheSameCatalogAfterItIsDeleted() throws {
        let library = try makeTemporaryDirectory(self).path
        _ = try makeLibrary(in: library, count: 12)
        let catalog = library + "/catalog.sqlite"
        let before = try SQLiteCatalog(path: catalog, readOnly: true).allOriginals()
        XCTAssertEqual(before.count, 12)
        for suffix in ["", "-wal", "-shm"] { unlink(catalog + suffix) }
        let result = try ShoeboxProcess.run(["reindex", "--library", library])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("originals: 12 (12 from the journal"), result.stdout)
        XCTAssertEqual(try SQLiteCatalog(path: catalog, readOnly: true).allOriginals(), before)
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library]).status, 0)
    }

    func testCorruptCatalogIsReportedWithItsRemedyAndNeverReplacedSilently() throws {
        let library = try makeTemporaryDirectory(self).path
        _ = try makeLibrary(in: library)
        let catalog = library + "/catalog.sqlite"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: catalog))
        for offset in 0..<100 { bytes[offset] = 0x42 }
        try bytes.write(to: URL(fileURLWithPath: catalog))

        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 4)
        XCTAssertTrue(verify.stderr.contains("catalog \(catalog) is corrupt"), verify.stderr)
        XCTAssertTrue(verify.stderr.contains("shoebox reindex --library \(library)"), verify.stderr)
        XCTAssertTrue(verify.stderr.contains("keeps this file beside it as catalog.sqlite.corrupt-"), verify.stderr)
        XCTAssertFalse(verify.stderr.contains("mv "), "reindex moves it aside itself: " + verify.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: catalog)), bytes)

        let reindex = try ShoeboxProcess.run(["reindex", "--library", library])
        XCTAssertEqual(reindex.status, 0, reindex.stderr)
        XCTAssertTrue(reindex.stdout.contains("previous catalog (corrupt) kept as catalog.sqlite.corrupt-"), reindex.stdout)
        let kept = try FileManager.default.contentsOfDirectory(atPath: library).filter { $0.hasPrefix("catalog.sqlite.corrupt-") }
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(FileManager.default.contents(atPath: library + "/" + kept[0]), bytes)
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library]).status, 0)
    }

    // MARK: Full disk

    func testFullDiskDuringReindexIsAClearErrorAndALaterRunCompletes() throws {
        let disk = try SmallFilesystem(kilobytes: 1024, test: self)
        let library = disk.path + "/library"
        let paths = try makeLibrary(in: library, count: 20, bytes: 30_000)
        let catalog = library + "/catalog.sqlite"
        let expected = try SQLiteCatalog(path: catalog, readOnly: true).allOriginals()
        for suffix in ["", "-wal", "-shm"] { unlink(catalog + suffix) }
        let filler = disk.fill()

        let full = try ShoeboxProcess.run(["reindex", "--library", library])
        XCTAssertEqual(full.status, 4, full.stdout + full.stderr)
        XCTAssertTrue(full.stderr.contains("disk full"), full.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: catalog), "no partial catalog put in place")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: library + "/.tmp"), [], "no partial rebuild left behind")
        for path in paths { XCTAssertTrue(FileManager.default.fileExists(atPath: library + "/" + path)) }

        try FileManager.default.removeItem(atPath: filler)
        let later = try ShoeboxProcess.run(["reindex", "--library", library])
        XCTAssertEqual(later.status, 0, later.stderr)
        XCTAssertEqual(try SQLiteCatalog(path: catalog, readOnly: true).allOriginals(), expected)
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library]).status, 0)
    }

    func testFullDiskDuringAJournalAppendLeavesTheJournalAsItWas() throws {
        let disk = try SmallFilesystem(kilobytes: 256, test: self)
        let path = disk.path + "/journal.jsonl"
        let journal = try Journal(path: path)
        func batch(_ n: Int) -> [JournalEntry] {
            (0..<40).map { i in
                .sourceRecorded(SourceRecord(url: "http://127.0.0.1:9/\(n)/\(i)/" + String(repeating: "x", count: 200), fetchedAt: "t", outcome: .failed))
            }
        }
        try journal.append(batch(0))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let filler = disk.fill()
        XCTAssertThrowsError(try journal.append(batch(1))) { error in
            XCTAssertEqual(error as? JournalError, .diskFull(path: path))
            XCTAssertTrue("\(error)".contains("Free some space"))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the failed batch was cut off")
        try FileManager.default.removeItem(atPath: filler)
        try journal.append(batch(2))
        XCTAssertEqual(try Journal.read(path: path), batch(0) + batch(2))
    }

    // MARK: Read-only, missing, unwritable, locked

    func testReadOnlyLibraryCanBeVerifiedButNotReindexedAndNothingChanges() throws {
        let disk = try SmallFilesystem(kilobytes: 2048, test: self)
        let library = disk.path + "/library"
        _ = try makeLibrary(in: library)
        try disk.remount(readOnly: true)
        let before = snapshotFiles(in: library)

        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        let reindex = try ShoeboxProcess.run(["reindex", "--library", library, "--force"])
        XCTAssertEqual(reindex.status, 4)
        XCTAssertTrue(reindex.stderr.contains("not writable: Read-only file system"), reindex.stderr)
        XCTAssertEqual(snapshotFiles(in: library), before)
    }

    func testUnwritableCatalogIsAClearError() throws {
        let disk = try SmallFilesystem(kilobytes: 2048, test: self)
        let library = disk.path + "/library"
        _ = try makeLibrary(in: library)
        try disk.remount(readOnly: true)
        let catalog = library + "/catalog.sqlite"
        XCTAssertThrowsError(try SQLiteCatalog(path: catalog)) { error in
            guard case CatalogError.unwritable(let path, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(path, catalog)
            XCTAssertTrue("\(error)".contains("mounted read-write"), "\(error)")
        }
        XCTAssertEqual(try SQLiteCatalog(path: catalog, readOnly: true).countOriginals(), 6)
    }

    func testMissingLibraryIsAnErrorAndNothingIsCreated() throws {
        let parent = try makeTemporaryDirectory(self).path
        let library = parent + "/missing"
        for command in ["verify", "reindex"] {
            let result = try ShoeboxProcess.run([command, "--library", library])
            XCTAssertEqual(result.status, 4, command)
            XCTAssertTrue(result.stderr.contains("library \(library) does not exist"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: library))
        let usage = try ShoeboxProcess.run(["verify"])
        XCTAssertEqual(usage.status, 2)
    }

    func testRunningWriterMakesReindexExitWithLockedStatusWhileVerifyRunsBesideIt() throws {
        let library = try makeTemporaryDirectory(self).path
        _ = try makeLibrary(in: library)
        let holder = Process()
        // A stand-in writer: takes the lock, then becomes `sleep` (so terminate ends it at once).
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        holder.arguments = ["-c", "exec 9>>\"$0\" && flock --exclusive 9 && exec sleep 30", library + "/.lock"]
        try holder.run()
        defer {
            holder.terminate()
            holder.waitUntilExit()
        }
        var waited = 0
        while flockIsFree(library + "/.lock") && waited < 100 {
            usleep(20_000)
            waited += 1
        }
        let before = snapshotFiles(in: library)
        let result = try ShoeboxProcess.run(["reindex", "--library", library, "--force"])
        XCTAssertEqual(result.status, 3, "reindex: " + result.stderr)
        XCTAssertTrue(result.stderr.contains("in use by another shoebox process"), result.stderr)
        // verify only reads: it runs beside the writer and says so.
        let verify = try ShoeboxProcess.run(["verify", "--library", library])
        XCTAssertEqual(verify.status, 0, "verify: " + verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stderr.contains("was using the library"), verify.stderr)
        // Only SQLite's reader files appear (-wal, -shm: what a reader of a WAL database makes).
        let after = snapshotFiles(in: library).filter { !["catalog.sqlite-wal", "catalog.sqlite-shm"].contains($0.key) }
        XCTAssertEqual(after, before)
    }

    private func flockIsFree(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return false }
        flock(fd, LOCK_UN)
        return true
    }
}
