import Foundation
import XCTest
@testable import ShoeboxKit

/// The messages of the failures among a run's events.
private func failureMessages(_ events: [ThumbnailEvent]) -> [String] {
    events.compactMap { event -> String? in
        if case .failed(_, let error) = event { return error.description }
        return nil
    }
}

/// Thumbnails of camera raws come through LibRaw: the embedded preview when it has the
/// pixels, a half-size decode of the sensor data otherwise; upright by the raw's own
/// orientation, with nothing of its metadata (GPS above all).
final class RawThumbnailDecoderTests: XCTestCase {
    private let photo = "originals/2024/05/01/IMG_0001.dng"
    private let both = [ThumbnailSize(width: 256, height: 256), ThumbnailSize(width: 1024, height: 1024)]

    private func library(with raw: DNGFixture, truncatedTo length: Int? = nil) throws -> TestLibrary {
        let library = try TestLibrary(self)
        var bytes = raw.bytes
        if let length { bytes = Array(bytes.prefix(length)) }
        try Data(bytes).write(to: URL(fileURLWithPath: try library.prepare(photo)))
        try library.add(photo)
        return library
    }

    private func update(_ library: TestLibrary, sizes: [ThumbnailSize]) throws -> (ThumbnailSummary, [ThumbnailEvent]) {
        var events: [ThumbnailEvent] = []
        let summary = try ThumbnailUpdater(libraryRoot: library.root, catalog: library.catalog,
                                           options: ThumbnailOptions(sizes: sizes, jobs: 1))
            .run(prune: false) { events.append($0) }
        return (summary, events)
    }

    private func thumbnail(_ library: TestLibrary, _ size: Int) -> String {
        library.root + "/thumbnails/\(size)/2024/05/01/IMG_0001.dng.jpg"
    }

    private func assertColour(_ file: String, x: Int, y: Int, _ name: String, _ test: ([Int]) -> Bool,
                              line: UInt = #line) throws {
        let pixel = try ImageFixtures.pixel(file, x: x, y: y)
        XCTAssertTrue(test(pixel), "(\(x), \(y)) of \(file) should be \(name): \(pixel)", line: line)
    }

    private let red: ([Int]) -> Bool = { $0[0] > 180 && $0[2] < 120 && $0[1] < 90 }
    private let blue: ([Int]) -> Bool = { $0[2] > 180 && $0[0] < 90 }
    private let green: ([Int]) -> Bool = { $0[1] > 180 && $0[0] < 90 && $0[2] < 90 }
    private let orange: ([Int]) -> Bool = { $0[0] > 200 && $0[1] > 120 && $0[1] < 200 && $0[2] < 60 }
    private let purple: ([Int]) -> Bool = { $0[0] > 90 && $0[0] < 170 && $0[1] < 60 && $0[2] > 90 }

    func testARawWithoutPreviewIsDecodedAtHalfSizeUprightAndWithoutGPS() throws {
        let library = try library(with: DNGFixture(orientation: 6, gps: true))
        let original = try ImageFixtures.tags(library.root + "/" + photo)
        XCTAssertNotNil(original["GPS:GPSLatitude"], "the fixture must carry GPS for this test to mean anything")
        XCTAssertEqual(original["IFD0:Orientation"] as? Int, 6)

        let (summary, _) = try update(library, sizes: both)
        XCTAssertEqual([summary.made, summary.failed], [2, 0])
        // 640x480 stored, a quarter turn clockwise upright: 480x640, and 240x320 at half size.
        let (w, h) = try ImageFixtures.size(thumbnail(library, 256))
        XCTAssertEqual([w, h], [192, 256])
        let (lw, lh) = try ImageFixtures.size(thumbnail(library, 1024))
        XCTAssertEqual([lw, lh], [240, 320], "the half-size decode is not enlarged")
        for file in [thumbnail(library, 256), thumbnail(library, 1024)] {
            let (fw, fh) = try ImageFixtures.size(file)
            // Stored left red, right blue, green block top left: upright top red, bottom blue, green top right.
            try assertColour(file, x: fw / 3, y: fh / 4, "red", red)
            try assertColour(file, x: fw / 2, y: fh * 3 / 4, "blue", blue)
            try assertColour(file, x: fw - 4, y: 4, "green", green)
            let tags = try ImageFixtures.tags(file)
            XCTAssertTrue(tags.keys.filter { $0.contains("GPS") }.isEmpty, "GPS leaked: \(tags.keys)")
            XCTAssertNil(tags["IFD0:Make"], "no metadata of the raw")
            XCTAssertNil(tags["IFD0:Orientation"])
        }
        let records = try library.catalog.allThumbnails()
        XCTAssertEqual(records.map { [$0.width, $0.height] }, [[240, 320], [192, 256]])
    }

    func testTheEmbeddedPreviewIsUsedWhenItHasThePixelsAndTurnedUpright() throws {
        let folder = NSTemporaryDirectory()
        let preview = try DNGFixture.previewJPEG(width: 320, height: 240, in: folder)
        let library = try library(with: DNGFixture(orientation: 8, preview: preview))
        let (summary, _) = try update(library, sizes: [ThumbnailSize(width: 256, height: 256)])
        XCTAssertEqual([summary.made, summary.failed], [1, 0])
        let file = thumbnail(library, 256)
        XCTAssertEqual(try ImageFixtures.size(file).0, 192)
        XCTAssertEqual(try ImageFixtures.size(file).1, 256)
        // Orange (the preview, not the red and blue sensor data); its top-left block turned a
        // quarter anticlockwise (orientation 8) is at the bottom left.
        try assertColour(file, x: 96, y: 128, "orange", orange)
        try assertColour(file, x: 4, y: 252, "purple", purple)
        try assertColour(file, x: 188, y: 4, "orange", orange)
    }

    func testAPreviewTooSmallForTheSizeGivesWayToTheSensorData() throws {
        let preview = try DNGFixture.previewJPEG(width: 64, height: 48, in: NSTemporaryDirectory())
        let library = try library(with: DNGFixture(preview: preview))
        let (summary, _) = try update(library, sizes: [ThumbnailSize(width: 256, height: 256)])
        XCTAssertEqual([summary.made, summary.failed], [1, 0])
        let file = thumbnail(library, 256)
        XCTAssertEqual([try ImageFixtures.size(file).0, try ImageFixtures.size(file).1], [256, 192])
        try assertColour(file, x: 64, y: 96, "red", red)
        try assertColour(file, x: 192, y: 96, "blue", blue)
    }

    func testTruncatedSensorDataFallsBackToThePreview() throws {
        let preview = try DNGFixture.previewJPEG(width: 64, height: 48, in: NSTemporaryDirectory())
        let raw = DNGFixture(preview: preview)
        // Cut inside the first rows of the sensor data.
        let library = try library(with: raw, truncatedTo: raw.bytes.count - 640 * 470 * 2)
        let (summary, _) = try update(library, sizes: [ThumbnailSize(width: 256, height: 256)])
        XCTAssertEqual([summary.made, summary.failed], [1, 0])
        let file = thumbnail(library, 256)
        XCTAssertEqual([try ImageFixtures.size(file).0, try ImageFixtures.size(file).1], [64, 48], "the preview, not enlarged")
        try assertColour(file, x: 40, y: 30, "orange", orange)
    }

    func testATruncatedRawWithoutPreviewFailsNamingTheFileAndLeavesNoThumbnail() throws {
        let raw = DNGFixture()
        let library = try library(with: raw, truncatedTo: raw.bytes.count - 640 * 470 * 2)
        let (summary, events) = try update(library, sizes: both)
        XCTAssertEqual([summary.made, summary.failed], [0, 1])
        let messages = failureMessages(events)
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(messages[0].hasPrefix(photo + ": cannot decode ("), messages[0])
        XCTAssertTrue(messages[0].contains("truncated"), messages[0])
        XCTAssertFalse(FileManager.default.fileExists(atPath: thumbnail(library, 256)))
        XCTAssertEqual(try library.catalog.allThumbnails().count, 0)
    }

    func testGarbageNamedAsARawIsRefusedAsUnreadable() throws {
        let library = try TestLibrary(self)
        // A TIFF header that FormatSniffer calls a DNG, and nothing LibRaw can use behind it.
        var tiff = TIFFBytes()
        tiff.long(0x0100, 4000)
        tiff.long(0x0101, 3000)
        tiff.bytes(0xC612, [1, 4, 0, 0])
        try Data(tiff.data).write(to: URL(fileURLWithPath: try library.prepare(photo)))
        try library.add(photo)
        let (summary, events) = try update(library, sizes: both)
        XCTAssertEqual([summary.made, summary.failed], [0, 1])
        let failures = failureMessages(events)
        XCTAssertEqual(failures.count, 1, "\(events)")
        XCTAssertTrue(failures.first?.hasPrefix(photo + ": ") == true, "\(failures)")
    }
}

/// LibRaw runs in a child process: its crash or hang (Debian's 0.20 overflows a heap buffer on
/// some damaged previews) fails that one original, never the run. SHOEBOX_LIBRAW_FAULT makes the
/// child crash or hang where it would make a preview or a decode.
final class RawThumbnailIsolationTests: XCTestCase {
    override func tearDown() {
        unsetenv("SHOEBOX_LIBRAW_FAULT")
    }

    func testLibRawCrashingFailsThatOriginalAndTheRunGoesOn() throws {
        let library = try TestLibrary(self)
        let raw = "originals/2024/05/01/IMG_0001.dng", jpeg = "originals/2024/05/01/IMG_0002.jpg"
        try Data(DNGFixture().bytes).write(to: URL(fileURLWithPath: try library.prepare(raw)))
        try library.add(raw)
        try ImageFixtures.solid(at: try library.prepare(jpeg), width: 300, height: 200, color: "red")
        try library.add(jpeg)
        setenv("SHOEBOX_LIBRAW_FAULT", "crash", 1)
        var events: [ThumbnailEvent] = []
        let summary = try ThumbnailUpdater(libraryRoot: library.root, catalog: library.catalog,
                                           options: ThumbnailOptions(sizes: [ThumbnailSize(width: 256, height: 256)], jobs: 2))
            .run(prune: false) { events.append($0) }
        XCTAssertEqual([summary.made, summary.failed], [1, 1])
        let failures = failureMessages(events)
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures[0].hasPrefix(raw + ": cannot decode (LibRaw crashed on it (signal 6"), failures[0])
        XCTAssertTrue(FileManager.default.fileExists(atPath: library.root + "/thumbnails/256/2024/05/01/IMG_0002.jpg.jpg"))

        unsetenv("SHOEBOX_LIBRAW_FAULT")
        let again = try ThumbnailUpdater(libraryRoot: library.root, catalog: library.catalog,
                                         options: ThumbnailOptions(sizes: [ThumbnailSize(width: 256, height: 256)], jobs: 2))
            .run(prune: false) { _ in }
        XCTAssertEqual([again.made, again.failed], [1, 0], "the raw is made once LibRaw behaves")
    }

    func testLibRawHangingIsStoppedAtItsDeadline() throws {
        let raw = try RawThumbnailDecoder(bytes: DNGFixture().bytes, name: "hang.dng", maxMemory: 256 << 20, decodeSeconds: 1)
        setenv("SHOEBOX_LIBRAW_FAULT", "hang", 1)
        let started = Date()
        XCTAssertThrowsError(try raw.uprightImageSize(longestSide: 256)) { error in
            XCTAssertTrue("\(error)".contains("LibRaw took longer than 1 s on it and was stopped"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "stopped, not waited for")
    }

    /// A preview's own JPEG header decides what decoding it takes, not the raw's stated size; a
    /// progressive one keeps its full-size coefficients however much it is shrunk, so it counts at full size.
    func testAProgressivePreviewCountsAtItsFullSize() throws {
        let folder = NSTemporaryDirectory() + "progressive-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var sizes: [String: (width: Int, height: Int)] = [:]
        for interlace in ["None", "Plane"] {
            let path = folder + "/\(interlace).jpg"
            try ImageFixtures.run(ImageFixtures.convert, ["-size", "4000x3000", "xc:orange", "-interlace", interlace, path])
            let jpeg = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            // The raw's headers claim a 400x300 preview: a 64-pixel size asks for a DCT shrink of 4.
            let raw = try RawThumbnailDecoder(bytes: DNGFixture(preview: (jpeg, 400, 300)).bytes, name: "\(interlace).dng",
                                              maxMemory: 64 << 20)
            sizes[interlace] = try raw.uprightImageSize(longestSide: 64)
        }
        // 1000x750 once shrunk: under the 64 MiB / 6 pixel limit as a baseline JPEG; at full size
        // (12 megapixels) over it as a progressive one, whose sensor data is decoded instead.
        XCTAssertEqual([sizes["None"]?.width, sizes["None"]?.height], [1000, 750])
        XCTAssertEqual([sizes["Plane"]?.width, sizes["Plane"]?.height], [320, 240])
    }

    func testALargerDecodeComesBackWholeFromTheChild() throws {
        // 1600x1200 photosites at half size: 800x600x3 bytes through the answer file.
        let raw = try RawThumbnailDecoder(bytes: DNGFixture(width: 1600, height: 1200).bytes, name: "big.dng",
                                          maxMemory: 256 << 20)
        let size = try raw.uprightImageSize(longestSide: 100_000)
        XCTAssertEqual([size.width, size.height], [800, 600])
    }
}

/// The child keeps none of this process's descriptors but its answer file: not the catalog,
/// the journal or sockets, in case a hostile raw takes it over.
final class RawThumbnailDescriptorTests: XCTestCase {
    override func tearDown() {
        unsetenv("SHOEBOX_LIBRAW_FAULT")
    }

    func testTheChildInheritsNoOpenDescriptor() throws {
        let path = NSTemporaryDirectory() + "held-\(UUID().uuidString)"
        let held = open(path, O_CREAT | O_RDWR, 0o600)
        XCTAssertGreaterThan(held, 2)
        defer {
            close(held)
            unlink(path)
        }
        setenv("SHOEBOX_LIBRAW_FAULT", "fds", 1)
        XCTAssertThrowsError(try RawThumbnailDecoder(bytes: DNGFixture().bytes, name: "fds.dng", maxMemory: 256 << 20)) { error in
            XCTAssertTrue("\(error)".contains("descriptors besides the answer file: none"), "\(error)")
        }
    }
}
