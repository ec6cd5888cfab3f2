import Foundation
import ShoeboxKit
import ShoeboxTestSupport
import XCTest

/// `shoebox import`: photos on disk archived under fetch's rules (real files, a real catalog).
/// The photos are made by the fixture server's /photo route (JPEGs with the EXIF asked for).
final class ImportCommandTests: XCTestCase {
    private var server: FixtureServer!
    private var work: URL!
    private var card: URL { work.appendingPathComponent("card") }
    private var library: URL { work.appendingPathComponent("library") }

    override func setUpWithError() throws {
        server = try startFixtureServer()
        work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoebox-import-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server.stop()
        for case let path as String in FileManager.default.enumerator(atPath: work.path)?.allObjects ?? [] {
            chmod(work.appendingPathComponent(path).path, 0o755)
        }
        try? FileManager.default.removeItem(at: work)
    }

    /// Writes a photo (EXIF date `date`, or none) at `relative` under the card; returns its bytes.
    @discardableResult
    private func photo(_ relative: String, seed: String, date: String? = "2019:07:08 09:10:11") throws -> Data {
        let bytes = try server.get("/photo/p.jpg?seed=\(seed)" + (date.map { "&date=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! } ?? ""))
        let url = card.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: url)
        return bytes
    }

    private func importCard(_ extra: [String] = []) throws -> (status: Int32, records: [[String: Any]], stderr: String) {
        let result = try ShoeboxProcess.run(["import", card.path, "--json", "--library", library.path] + extra)
        return (result.status, FetchRunner.parseLines(result.stdout), result.stderr)
    }

    private func record(_ records: [[String: Any]], _ relative: String) -> [String: Any]? {
        records.first { $0["source"] as? String == card.appendingPathComponent(relative).path }
    }

    private func catalog() throws -> SQLiteCatalog {
        try SQLiteCatalog(path: library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
    }

    func testATreeIsArchivedByteForByteDatedNamedAndDeduplicatedAndWhatIsNoPhotoIsCounted() throws {
        let dated = try photo("DCIM/100/IMG_0001.JPG", seed: "a")
        let undated = try photo("DCIM/100/IMG_0002.JPG", seed: "b", date: nil)
        // No EXIF date: the file's modification time dates it.
        var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        utimensat(AT_FDCWD, card.appendingPathComponent("DCIM/100/IMG_0002.JPG").path, &times, 0)
        try dated.write(to: card.appendingPathComponent("backup/copy of IMG_0001.JPG").creatingFolder())
        try Data("video".utf8).write(to: card.appendingPathComponent("DCIM/100/MVI_0003.MOV"))
        try Data("<x:xmpmeta/>".utf8).write(to: card.appendingPathComponent("DCIM/100/IMG_0001.xmp"))
        try Data([0, 1, 2]).write(to: card.appendingPathComponent(".DS_Store"))
        try Data("<html>".utf8).write(to: card.appendingPathComponent("fake.jpg"))
        try FileManager.default.createSymbolicLink(atPath: card.appendingPathComponent("outside.jpg").path,
                                                   withDestinationPath: "/etc/hostname")

        let run = try importCard()
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(record(run.records, "DCIM/100/IMG_0001.JPG")?["path"] as? String, "originals/2019/07/08/IMG_0001.jpg")
        XCTAssertEqual(record(run.records, "DCIM/100/IMG_0002.JPG")?["path"] as? String, "originals/2020/09/13/IMG_0002.jpg")
        XCTAssertEqual(record(run.records, "backup/copy of IMG_0001.JPG")?["outcome"] as? String, "duplicate")
        for (relative, what) in [("DCIM/100/MVI_0003.MOV", "video"), ("DCIM/100/IMG_0001.xmp", "sidecar"), (".DS_Store", "system file"),
                                 ("fake.jpg", "not an image")] {
            XCTAssertEqual(record(run.records, relative)?["outcome"] as? String, "not-imported", relative)
            XCTAssertEqual(record(run.records, relative)?["reason"] as? String, what, relative)
        }
        XCTAssertTrue((record(run.records, "outside.jpg")?["reason"] as? String ?? "").contains("symbolic link, not followed"))
        XCTAssertTrue(run.stderr.contains("import: 8 files: 2 new originals, 1 duplicate, 4 not photos (1 not an image, 1 sidecar, 1 system file, 1 video), 1 symbolic link not followed"), run.stderr)
        for (path, bytes) in [("originals/2019/07/08/IMG_0001.jpg", dated), ("originals/2020/09/13/IMG_0002.jpg", undated)] {
            let file = library.appendingPathComponent(path).path
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), bytes)
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int, 0o444)
        }
        // The source file's time is kept.
        var kept = stat()
        stat(library.appendingPathComponent("originals/2020/09/13/IMG_0002.jpg").path, &kept)
        XCTAssertEqual(kept.st_mtim.tv_sec, 1_600_000_000)
        let catalog = try catalog()
        defer { catalog.close() }
        XCTAssertEqual(try catalog.original(path: "originals/2020/09/13/IMG_0002.jpg")?.datedBy, .fileTime)
        XCTAssertEqual(try catalog.original(path: "originals/2019/07/08/IMG_0001.jpg")?.datedBy, .exif)
        let source = try XCTUnwrap(try catalog.source(url: card.appendingPathComponent("DCIM/100/IMG_0001.JPG").absoluteString))
        XCTAssertEqual(source.outcome, .stored)
        XCTAssertEqual(try catalog.sources(sha256: source.sha256!).count, 2, "the duplicate's path is recorded too")
        // Journalled: a catalog rebuilt by reindex knows where they came from.
        let verify = try ShoeboxProcess.run(["verify", "--library", library.path])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        try FileManager.default.removeItem(at: library.appendingPathComponent("catalog.sqlite"))
        XCTAssertEqual(try ShoeboxProcess.run(["reindex", "--library", library.path]).status, 0)
        let rebuilt = try self.catalog()
        defer { rebuilt.close() }
        XCTAssertEqual(try rebuilt.sources(sha256: source.sha256!).count, 2)
    }

    func testASecondImportOfAnUnchangedTreeReadsNoBytes() throws {
        for index in 0..<5 { try photo("p\(index).jpg", seed: "q\(index)") }
        XCTAssertEqual(try importCard().status, 0)
        // Same size and time, other bytes: the quick check does not read them (as rsync's does not).
        let target = card.appendingPathComponent("p3.jpg").path
        var before = stat()
        stat(target, &before)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: target))
        bytes[bytes.count - 3] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: target))
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, target, &times, 0)
        let again = try importCard()
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.records.compactMap { $0["outcome"] as? String }, Array(repeating: "skipped", count: 5))
        XCTAssertTrue(again.stderr.contains("5 unchanged"), again.stderr)
        // A file whose time changed is read again: here, new bytes make a new original.
        times[1].tv_sec += 60
        utimensat(AT_FDCWD, target, &times, 0)
        let third = try importCard()
        XCTAssertEqual(record(third.records, "p3.jpg")?["outcome"] as? String, "stored")
        XCTAssertTrue(third.stderr.contains("1 new original, 4 unchanged"), third.stderr)
    }

    func testMoveRemovesSourcesOnlyOnceArchivedAndLinkSharesTheFile() throws {
        let a = try photo("a.jpg", seed: "m1")
        try a.write(to: card.appendingPathComponent("again/a.jpg").creatingFolder())
        try Data("notes".utf8).write(to: card.appendingPathComponent("notes.txt"))
        let moved = try importCard(["--move"])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: card.appendingPathComponent("a.jpg").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: card.appendingPathComponent("again/a.jpg").path), "a duplicate's bytes are archived too")
        XCTAssertTrue(FileManager.default.fileExists(atPath: card.appendingPathComponent("notes.txt").path), "what is no photo stays")
        XCTAssertEqual(try Data(contentsOf: library.appendingPathComponent("originals/2019/07/08/a.jpg")), a)
        XCTAssertTrue(moved.stderr.contains("2 sources removed (--move)"), moved.stderr)

        let b = try photo("b.jpg", seed: "l1")
        let linked = try importCard(["--link"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        var source = stat(), original = stat()
        stat(card.appendingPathComponent("b.jpg").path, &source)
        stat(library.appendingPathComponent("originals/2019/07/08/b.jpg").path, &original)
        XCTAssertEqual(source.st_ino, original.st_ino, "one file, two names")
        XCTAssertEqual(source.st_mode & 0o777, 0o444, "the source shares the original's read-only mode")
        XCTAssertEqual(try Data(contentsOf: library.appendingPathComponent("originals/2019/07/08/b.jpg")), b)
        XCTAssertEqual(try ShoeboxProcess.run(["verify", "--library", library.path]).status, 0)
    }

    func testADryRunWritesNothingAndRefusedPathsAreUsageErrors() throws {
        try photo("x.jpg", seed: "d1")
        try photo("y.jpg", seed: "d1")
        let dry = try importCard(["--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(record(dry.records, "x.jpg")?["outcome"] as? String, "would-store")
        XCTAssertEqual(record(dry.records, "x.jpg")?["path"] as? String, "originals/2019/07/08/x.jpg")
        XCTAssertEqual(record(dry.records, "y.jpg")?["outcome"] as? String, "duplicate", "the same bytes twice in the tree")
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.path), "nothing written")

        let missing = try ShoeboxProcess.run(["import", work.appendingPathComponent("nowhere").path, "--library", library.path])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nowhere"), missing.stderr)
        XCTAssertEqual(try importCard().status, 0)
        let inside = try ShoeboxProcess.run(["import", library.appendingPathComponent("originals").path, "--library", library.path])
        XCTAssertEqual(inside.status, 2)
        XCTAssertTrue(inside.stderr.contains("inside the library"), inside.stderr)
    }

    func testAnImportKilledAtAnyMomentLeavesNothingHalfMadeAndARerunFinishes() throws {
        for index in 0..<150 { try photo("k/\(index).jpg", seed: "k\(index)") }
        for round in 0..<3 {
            let (process, _, _) = try ShoeboxProcess.start(["import", card.path, "--library", library.path])
            usleep(UInt32(150_000 + round * 90_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try assertConsistent()
        }
        let rerun = try importCard()
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        try assertConsistent()
        let catalog = try catalog()
        defer { catalog.close() }
        XCTAssertEqual(try catalog.countOriginals(), 150)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent(".tmp").path), [])
    }

    func testAMoveKilledAtAnyMomentRemovesNoSourceWhoseBytesAreNotInTheLibrary() throws {
        var contents: [String: Data] = [:]
        for index in 0..<150 { contents["m/\(index).jpg"] = try photo("m/\(index).jpg", seed: "mv\(index)") }
        for round in 0..<3 {
            let (process, _, _) = try ShoeboxProcess.start(["import", card.path, "--move", "--library", library.path])
            usleep(UInt32(120_000 + round * 110_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try assertConsistent()
            // A source gone is one whose bytes the catalog has, in place or staged for the next run.
            let catalog = try catalog()
            let hashes = Set(try catalog.allOriginals().map(\.sha256))
            catalog.close()
            for (relative, bytes) in contents where !FileManager.default.fileExists(atPath: card.appendingPathComponent(relative).path) {
                let hasher = SHA256Hasher()
                bytes.withUnsafeBytes { hasher.update($0) }
                XCTAssertTrue(hashes.contains(hasher.finalizeHex()), "\(relative) removed without its original")
            }
        }
        let rerun = try importCard(["--move"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        try assertConsistent()
        let left = (FileManager.default.enumerator(atPath: card.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(left, [], "every source moved in the end")
        let catalog = try catalog()
        defer { catalog.close() }
        XCTAssertEqual(try catalog.countOriginals(), 150)
    }

    /// Every row's file (or, after a kill, its staged content) hashes right; every file has a row.
    private func assertConsistent() throws {
        guard FileManager.default.fileExists(atPath: library.appendingPathComponent("catalog.sqlite").path) else { return }
        let catalog = try catalog()
        defer { catalog.close() }
        var recorded = Set<String>()
        for original in try catalog.allOriginals() {
            recorded.insert(original.path)
            var path = library.appendingPathComponent(original.path).path
            if !FileManager.default.fileExists(atPath: path) { path = library.appendingPathComponent(".tmp/\(original.sha256).staged").path }
            XCTAssertEqual(try? SHA256Hasher.hashFile(atPath: path).sha256, original.sha256, original.path)
        }
        let originals = library.appendingPathComponent("originals").path
        for case let name as String in FileManager.default.enumerator(atPath: originals)?.allObjects ?? [] {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: originals + "/" + name, isDirectory: &isFolder)
            if !isFolder.boolValue { XCTAssertTrue(recorded.contains("originals/" + name), "file without row: \(name)") }
        }
    }
}

private extension URL {
    /// Makes the folder this file goes in; returns the URL.
    func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return self
    }
}
