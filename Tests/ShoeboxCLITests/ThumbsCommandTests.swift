import Foundation
import ShoeboxKit
@testable import ShoeboxCLI
import XCTest

final class ThumbsCommandTests: XCTestCase {
    func testMakesThumbnailsWithJSONLinesAndRecordsThem() throws {
        let library = try PhotoLibraryFixture(self)
        try library.addPhoto("originals/2024/05/01/a.jpg", color: "red", exif: true)
        try library.addPhoto("originals/2024/05/02/b.jpg", color: "blue", width: 300, height: 500)

        let result = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "64", "-s", "128", "--json", "-j", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try result.stdout.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(lines.count, 4)
        let a64 = try XCTUnwrap(lines.first { $0["original"] as? String == "originals/2024/05/01/a.jpg" && $0["size"] as? String == "64" })
        XCTAssertEqual(a64["path"] as? String, "thumbnails/64/2024/05/01/a.jpg.jpg")
        // Orientation 6 turns the stored 400x300 upright into 300x400.
        XCTAssertEqual(a64["width"] as? Int, 48)
        XCTAssertEqual(a64["height"] as? Int, 64)
        XCTAssertGreaterThan(a64["bytes"] as? Int ?? 0, 100)
        XCTAssertNotNil(a64["milliseconds"] as? Double)
        XCTAssertEqual(try library.thumbnails().count, 4)
        XCTAssertTrue(library.exists("thumbnails/CACHEDIR.TAG"))
        XCTAssertTrue(result.stderr.contains("thumbs: 2 originals: 0 up to date, 0 failed; 4 thumbnails made"), result.stderr)
        let gps = try PhotoLibraryFixture.tool("/usr/bin/exiftool", ["-s", "-GPS:all", library.root + "/thumbnails/128/2024/05/01/a.jpg.jpg"])
        XCTAssertEqual(gps.trimmingCharacters(in: .whitespacesAndNewlines), "", "no GPS in thumbnails")

        let again = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "64,128", "--json"])
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.stdout, "", "up-to-date thumbnails are kept")
        XCTAssertTrue(again.stderr.contains("2 up to date"), again.stderr)
        let forced = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "64,128", "--json", "--force"])
        XCTAssertEqual(forced.stdout.split(separator: "\n").count, 4)
    }

    func testFailuresNameTheFileAndExitOne() throws {
        let library = try PhotoLibraryFixture(self)
        try library.addPhoto("originals/2024/05/01/good.jpg", color: "green")
        let bad = "originals/2024/05/01/bad.jpg"
        try Data("this is not an image at all".utf8).write(to: URL(fileURLWithPath: library.root + "/" + bad))
        try library.record(bad)
        let result = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "64"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains(bad + ":"), result.stderr)
        XCTAssertTrue(library.exists("thumbnails/64/2024/05/01/good.jpg.jpg"))

        let refused = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "64", "--force", "--max-pixels", "1000"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("good.jpg: 400x300 is 120000 pixels, over the limit of 1000"), refused.stderr)
    }

    func testUsageAndLibraryErrors() throws {
        let library = try PhotoLibraryFixture(self)
        for bad in [["--size", "0"], ["--size", "12x"], ["--format", "gif"], ["--fit", "stretch"], ["--quality", "101"],
                    ["--max-pixels", "lots"], ["extra"]] {
            let result = try ShoeboxProcess.run(["thumbs", "--library", library.root] + bad)
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
        }
        let missing = try ShoeboxProcess.run(["thumbs", "--library", library.root + "/nowhere"])
        XCTAssertEqual(missing.status, 4)
        XCTAssertTrue(missing.stderr.contains("nowhere"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.root + "/nowhere"), "thumbs never creates a library")

        let lock = try LibraryLock(layout: LibraryLayout(root: library.root))
        let locked = try ShoeboxProcess.run(["thumbs", "--library", library.root])
        XCTAssertEqual(locked.status, 3, locked.stderr)
        withExtendedLifetime(lock) {}
    }

    func testGalleryCommandWritesARelativePageAndShowsGPSOnlyWhenAsked() throws {
        let library = try PhotoLibraryFixture(self)
        try library.addPhoto("originals/2024/05/01/a.jpg", color: "red", exif: true)
        try library.addPhoto("originals/2024/05/03/b c.jpg", color: "blue", takenAt: "2024:05:03 08:00:00")
        try library.addPhoto("originals/2024/05/04/none.jpg", color: "green")
        XCTAssertEqual(try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "64,128"]).status, 0)
        try FileManager.default.removeItem(atPath: library.root + "/thumbnails/64/2024/05/04")
        try FileManager.default.removeItem(atPath: library.root + "/thumbnails/128/2024/05/04")

        let result = try ShoeboxProcess.run(["gallery", "--library", library.root])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), library.root + "/gallery/index.html")
        XCTAssertTrue(result.stderr.contains("2 photos"), result.stderr)
        XCTAssertTrue(result.stderr.contains("1 original has no thumbnail"), result.stderr)
        let html = try String(contentsOfFile: library.root + "/gallery/months/2024.html", encoding: .utf8)
        XCTAssertTrue(html.contains("data-original=\"../../originals/2024/05/03/b%20c.jpg\""))
        XCTAssertTrue(html.contains("srcset=\"../../thumbnails/64/2024/05/01/a.jpg.jpg 48w, ../../thumbnails/128/2024/05/01/a.jpg.jpg 96w\""), html)
        XCTAssertFalse(html.contains("48.8"))

        let out = library.root + "/../shared-gallery"
        let withGPS = try ShoeboxProcess.run(["gallery", "--library", library.root, "--out", out, "--gps", "--json"])
        XCTAssertEqual(withGPS.status, 0, withGPS.stderr)
        let summary = try JSONSerialization.jsonObject(with: Data(withGPS.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(summary?["images"] as? Int, 2)
        XCTAssertNotNil(summary?["without_thumbnails"] as? Int, "snake_case keys, as fetch --json")
        let emptyOut = try ShoeboxProcess.run(["gallery", "--library", library.root, "--out", ""])
        XCTAssertEqual(emptyOut.status, 2, "an empty --out is not the current folder: \(emptyOut.stderr)")
        try FileManager.default.createSymbolicLink(atPath: library.root + "/../archive-link", withDestinationPath: library.root + "/originals")
        for inside in [library.root + "/originals", library.root + "/originals/2024/new", library.root + "/../archive-link",
                       library.root + "/thumbnails/page"] {
            let refused = try ShoeboxProcess.run(["gallery", "--library", library.root, "--out", inside])
            XCTAssertEqual(refused.status, 2, "\(inside): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("is inside the library's"), refused.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.root + "/originals/index.html"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.root + "/originals/2024/new"), "nothing made there")
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        XCTAssertTrue(page.contains("src=\"../library/thumbnails/64/"), "relative to the chosen folder")
        XCTAssertTrue(page.contains("src=\"map.svg\""))
        let photoPages = try FileManager.default.contentsOfDirectory(atPath: out + "/photos")
        XCTAssertEqual(photoPages.count, 2)
        let photos = try photoPages.map { try String(contentsOfFile: out + "/photos/" + $0, encoding: .utf8) }.joined()
        XCTAssertTrue(photos.contains("48.85840, 2.29450"), photos)
    }
}

final class ThumbsInterruptTests: XCTestCase {
    /// SIGINT stops after the images in progress: exit 130, what was made is
    /// recorded, and a later run finishes the rest.
    func testInterruptStopsCleanlyAndALaterRunFinishes() throws {
        let library = try PhotoLibraryFixture(self)
        let first = "originals/2024/05/01/big-00.jpg"
        try library.addPhoto(first, color: "gray", width: 3000, height: 2000)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library.root + "/" + first))
        let count = 12
        for index in 1..<count {
            // Bytes after the JPEG end marker are ignored by decoders but give each copy its own hash.
            let path = String(format: "originals/2024/05/01/big-%02d.jpg", index)
            try (bytes + Data("copy \(index)".utf8)).write(to: URL(fileURLWithPath: library.root + "/" + path))
            try library.record(path)
        }
        let (process, out, err) = try ShoeboxProcess.start(["thumbs", "--library", library.root, "--size", "2000", "--json", "-j", "1"])
        let firstLine = ShoeboxProcess.readSome(out.fileHandleForReading)
        XCTAssertFalse(firstLine.isEmpty, "a first thumbnail is reported before the interrupt")
        kill(process.processIdentifier, SIGINT)
        let rest = ShoeboxProcess.readAll(out.fileHandleForReading)
        let stderr = String(decoding: ShoeboxProcess.readAll(err.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, stderr)
        XCTAssertTrue(stderr.contains("interrupted"), stderr)
        let made = String(decoding: firstLine + rest, as: UTF8.self).split(separator: "\n").count
        XCTAssertGreaterThan(made, 0)
        XCTAssertLessThan(made, count, "stopped early")
        XCTAssertEqual(try library.thumbnails().count, made, "everything made is recorded")

        let finish = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "2000", "--json"])
        XCTAssertEqual(finish.status, 0, finish.stderr)
        XCTAssertEqual(finish.stdout.split(separator: "\n").count, count - made)
        XCTAssertEqual(try library.thumbnails().count, count)
    }
}

/// `--max-memory` bounds the memory of a whole run, whatever `-j`: images libvips cannot
/// shrink while loading (an interlaced PNG is decoded whole, a progressive JPEG keeps all its
/// DCT coefficients) are admitted against one budget, and one over it is refused unread.
/// Before, a 1.9 MB interlaced 16-bit PNG of 249 megapixels took 2.16 GB.
final class ThumbsMemoryTests: XCTestCase {
    /// `shoebox ARGS` and its peak resident memory in bytes, from wait4's rusage (GNU time).
    private func runMeasured(_ arguments: [String]) throws -> (ShoeboxProcess.Result, Int64) {
        let report = try makeTemporaryDirectory(self).appendingPathComponent("rusage").path
        let (process, out, err) = try ShoeboxProcess.start(
            arguments, command: ["/usr/bin/time", "-f", "%M", "-o", report, ShoeboxProcess.executable.path])
        let result = ShoeboxProcess.waitCapturing(process, out: out, err: err)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let kilobytes = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int64($0) }, "GNU time said: \(text)")
        return (result, kilobytes * 1024)
    }

    func testMaxMemoryBoundsPeakRSSAtAnyJobsAndRefusesAnImageOverIt() throws {
        let library = try PhotoLibraryFixture(self)
        let normal = "originals/2024/05/01/normal.jpg"
        try library.addPhoto(normal, color: "green", width: 1200, height: 800)
        // The fixed overhead: a trivial run (libraries, runtime, one small photo).
        let (trivial, overhead) = try runMeasured(["thumbs", "--library", library.root, "-j", "2"])
        XCTAssertEqual(trivial.status, 0, trivial.stderr)

        let folder = try makeTemporaryDirectory(self).path
        // 64 megapixels of 16-bit RGBA, interlaced: 512 MB decoded, from a file of about 0.5 MB.
        let bomb = "originals/2024/05/01/bomb.png"
        try PhotoLibraryFixture.tool("/usr/bin/vips", ["black", folder + "/seed.v", "80", "80", "--bands", "4"])
        try PhotoLibraryFixture.tool("/usr/bin/vips", ["colourspace", folder + "/seed.v", folder + "/seed.png", "rgb16"])
        try PhotoLibraryFixture.tool("/usr/bin/vips", ["zoom", folder + "/seed.png",
                                                       library.root + "/" + bomb + "[interlace,compression=9]", "100", "100"])
        try library.record(bomb)
        // Two progressive JPEGs of 64 megapixels: about 195 MB of coefficients each, so one fits
        // in 256 MiB at a time, never both.
        var progressive: [String] = []
        for (index, height) in [8000, 7900].enumerated() {
            let path = "originals/2024/05/02/progressive-\(index).jpg"
            try FileManager.default.createDirectory(atPath: library.root + "/originals/2024/05/02", withIntermediateDirectories: true)
            try PhotoLibraryFixture.tool("/usr/bin/vips", ["black", library.root + "/" + path + "[interlace]", "8000", "\(height)",
                                                           "--bands", "3"])
            try library.record(path)
            progressive.append(path)
        }

        let budget: Int64 = 256 << 20
        let (result, peak) = try runMeasured(["thumbs", "--library", library.root, "--force", "--max-memory", "256M", "-j", "2"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("thumbs: \(bomb): decoding this 8000x8000 image needs about "), result.stderr)
        XCTAssertTrue(result.stderr.contains("(an interlaced image is decoded whole in memory), over the --max-memory budget "
            + "of 256.0 MiB; it was not attempted"), result.stderr)
        XCTAssertTrue(result.stderr.contains("4 originals: 0 up to date, 1 failed; 6 thumbnails made"), result.stderr)
        XCTAssertFalse(library.exists("thumbnails/256/2024/05/01/bomb.png.jpg"))
        for path in [normal] + progressive {
            let rest = path.dropFirst("originals/".count)
            XCTAssertTrue(library.exists("thumbnails/256/\(rest).jpg") && library.exists("thumbnails/1024/\(rest).jpg"), path)
        }
        XCTAssertLessThan(peak, budget + overhead,
                          "peak RSS \(peak >> 20) MiB, over the budget of 256 MiB + \(overhead >> 20) MiB of a trivial run")
    }

    func testMaxMemoryTakesASizeAndHelpSaysRepeatableOnce() throws {
        let library = try PhotoLibraryFixture(self)
        for bad in ["0", "lots", "-5M", ""] {
            let result = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--max-memory", bad])
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("max-memory"), result.stderr)
        }
        let help = try ShoeboxProcess.run(["thumbs", "--help"])
        XCTAssertEqual(help.status, 0)
        let sizeLine = try XCTUnwrap(help.stdout.split(separator: "\n").first { $0.contains("--size") })
        XCTAssertEqual(sizeLine.lowercased().components(separatedBy: "repeatable").count - 1, 1, String(sizeLine))
        XCTAssertTrue(help.stdout.contains("--max-memory SIZE"), help.stdout)
    }
}

/// A full disk during thumbs or gallery gets one plain message naming the file being written,
/// never Foundation's text ("Error Domain=NSCocoaErrorDomain Code=640 ..."), and exit status 4.
final class ThumbsFullDiskTests: XCTestCase {
    private func assertPlain(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        for foundation in ["Error Domain", "NSCocoaErrorDomain", "NSPOSIXErrorDomain", "The operation could not be completed",
                           "UserInfo="] {
            XCTAssertFalse(text.contains(foundation), "Foundation text reached the user: \(text)", file: file, line: line)
        }
    }

    /// A library whose thumbnails/ is on a small file system filled up.
    private func libraryWithFullThumbnailDisk(tagged: Bool) throws -> (PhotoLibraryFixture, SmallFilesystem) {
        let library = try PhotoLibraryFixture(self)
        try library.addPhoto("originals/2024/05/01/a.jpg", color: "red", width: 1200, height: 800)
        let disk = try SmallFilesystem(kilobytes: 256, test: self)
        try FileManager.default.createDirectory(atPath: disk.path + "/thumbnails", withIntermediateDirectories: false)
        if tagged {
            try Data(CacheDirectoryTag.contents.utf8).write(to: URL(fileURLWithPath: disk.path + "/thumbnails/CACHEDIR.TAG"))
        }
        try FileManager.default.createSymbolicLink(atPath: library.root + "/thumbnails", withDestinationPath: disk.path + "/thumbnails")
        disk.fill()
        return (library, disk)
    }

    func testThumbsOnAFullDiskStopsWithAPlainMessage() throws {
        // The cache tag is the first thing written: before, Foundation's error text was printed whole.
        let (untagged, _) = try libraryWithFullThumbnailDisk(tagged: false)
        let first = try ShoeboxProcess.run(["thumbs", "--library", untagged.root])
        XCTAssertEqual(first.status, 4, first.stderr)
        XCTAssertTrue(first.stderr.contains("thumbs: no space left on device writing \(untagged.root)/thumbnails/CACHEDIR.TAG; "
            + "the run stopped"), first.stderr)
        assertPlain(first.stderr)

        // A thumbnail itself: before, libvips' "out of disk space?" for every original, and exit status 1.
        let (tagged, disk) = try libraryWithFullThumbnailDisk(tagged: true)
        try tagged.addPhoto("originals/2024/05/01/b.jpg", color: "blue", width: 1200, height: 800)
        let second = try ShoeboxProcess.run(["thumbs", "--library", tagged.root, "-j", "1"])
        XCTAssertEqual(second.status, 4, second.stderr)
        XCTAssertTrue(second.stderr.contains("thumbs: no space left on device writing thumbnails/"), second.stderr)
        XCTAssertEqual(second.stderr.components(separatedBy: "no space left").count - 1, 1, "one message: \(second.stderr)")
        assertPlain(second.stderr)
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: disk.path + "/thumbnails")
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(ThumbnailLayout.temporaryPrefix) }
        XCTAssertEqual(leftovers, [], "no temporary file is left behind")
    }

    func testGalleryOnAFullDiskSaysSoPlainly() throws {
        let library = try PhotoLibraryFixture(self)
        try library.addPhoto("originals/2024/05/01/a.jpg", color: "red")
        XCTAssertEqual(try ShoeboxProcess.run(["thumbs", "--library", library.root, "--size", "64"]).status, 0)
        let disk = try SmallFilesystem(kilobytes: 256, test: self)
        try FileManager.default.createDirectory(atPath: disk.path + "/existing", withIntermediateDirectories: false)
        disk.fill()
        for out in [disk.path + "/existing", disk.path + "/new/folder"] {
            let result = try ShoeboxProcess.run(["gallery", "--library", library.root, "--out", out])
            XCTAssertEqual(result.status, 4, result.stderr)
            assertPlain(result.stderr)
            XCTAssertTrue(result.stderr.contains("gallery: no space left on device writing \(out)/gallery.css; free some space")
                || result.stderr.contains("gallery: no space left on device writing \(disk.path)/new"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/index.html"))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: disk.path + "/existing")
        XCTAssertEqual(leftovers, [], "no temporary page is left behind")
    }
}

/// The progress line of thumbs, drawn on a terminal only, says how long is left.
final class ThumbsProgressTests: XCTestCase {
    func testTheProgressLineHasAnETAUntilTheLastOriginal() {
        XCTAssertEqual(ThumbsCommand.progressLine(done: 1, total: 4, elapsed: 2), "thumbs: 1/4 originals  ETA 6.0s")
        XCTAssertEqual(ThumbsCommand.progressLine(done: 10, total: 100, elapsed: 10), "thumbs: 10/100 originals  ETA 1m30s")
        XCTAssertEqual(ThumbsCommand.progressLine(done: 4, total: 4, elapsed: 2), "thumbs: 4/4 originals")
        XCTAssertEqual(ThumbsCommand.progressLine(done: 1, total: 1, elapsed: 2), "thumbs: 1/1 original")
    }

    func testAnETAIsShownOnATerminalOnly() throws {
        let library = try PhotoLibraryFixture(self)
        for index in 0..<4 {
            try library.addPhoto("originals/2024/05/01/p\(index).jpg", color: ["red", "green", "blue", "gray"][index])
        }
        // Python's pty module gives shoebox a terminal for stderr.
        let script = """
            import os, pty, sys
            os.environ["TERM"] = "xterm"
            out = bytearray()
            def read(fd):
                data = os.read(fd, 65536)
                out.extend(data)
                return data
            pty.spawn(sys.argv[1:], read)
            sys.stdout.buffer.write(bytes(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, ShoeboxProcess.executable.path, "thumbs", "--library", library.root, "-j", "1", "-s", "64"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let terminal = String(decoding: ShoeboxProcess.readAll(out.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(terminal.contains("thumbs: 1/4 originals  ETA "), terminal.debugDescription)
        XCTAssertTrue(terminal.contains("4 thumbnails made"), terminal)

        let piped = try ShoeboxProcess.run(["thumbs", "--library", library.root, "--force", "-s", "64"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertFalse(piped.stderr.contains("ETA"), piped.stderr)
    }
}
