import XCTest
@testable import ShoeboxKit

/// Every container against exiftool, with several cameras' tags each (both
/// hemispheres, altitude below sea level, different orientations).
final class MetadataContainerTests: XCTestCase {
    static let extensions = ["tif", "png", "webp", "heic", "avif"]
    /// Made once for the whole class (vips and one exiftool process), removed in `tearDown()`.
    nonisolated(unsafe) private static var shared: Result<(URL, [(URL, CameraTags)]), Error>?

    override class func tearDown() {
        if case .success(let (directory, _))? = shared { try? FileManager.default.removeItem(at: directory) }
        shared = nil
        super.tearDown()
    }

    /// The class's fixtures: every camera in every container, with `ext`'s files first.
    private func makeFixtures(_ wanted: [String]) throws -> (URL, [(URL, CameraTags)]) {
        if Self.shared == nil {
            Self.shared = Result {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-containers-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                var items: [(URL, CameraTags)] = []
                for ext in Self.extensions {
                    for (index, tags) in CameraTags.cameras.enumerated() {
                        let url = directory.appendingPathComponent("camera\(index).\(ext)")
                        try MetadataFixtures.makeImage(url, width: 50 + index, height: 20 + 2 * index)
                        items.append((url, tags))
                    }
                }
                try MetadataFixtures.writeTags(items)
                return (directory, items)
            }
        }
        let (directory, items) = try Self.shared!.get()
        return (directory, items.filter { wanted.contains($0.0.pathExtension) })
    }

    private func assertAllMatch(_ urls: [URL], format: ImageFormat, file: StaticString = #filePath, line: UInt = #line) throws {
        let oracle = try MetadataFixtures.exiftool(urls)
        for url in urls {
            let expected = try XCTUnwrap(oracle[url.path], "exiftool did not read \(url.path)", file: file, line: line)
            XCTAssertNotNil(expected["Make"], "fixture \(url.lastPathComponent) carries no EXIF", file: file, line: line)
            let metadata = try MetadataReader.read(path: url.path)
            XCTAssertEqual(metadata.format, format, url.lastPathComponent, file: file, line: line)
            XCTAssertEqual(metadata.warnings, [], url.lastPathComponent, file: file, line: line)
            assertMatchesExiftool(metadata, expected, file: file, line: line)
        }
    }

    func testTIFF() throws {
        let (_, items) = try makeFixtures(["tif"])
        try assertAllMatch(items.map(\.0), format: .tiff)
    }

    func testPNGeXIf() throws {
        let (_, items) = try makeFixtures(["png"])
        try assertAllMatch(items.map(\.0), format: .png)
    }

    /// Before, EXIF past the chunk limit was missed without a word.
    func testEXIFPastThePNGChunkLimitIsMissedWithAWarning() throws {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = UInt32(data.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + Array(type.utf8) + data + [0, 0, 0, 0]  // CRC, not checked by the reader
        }
        let ihdr = chunk("IHDR", [0, 0, 0, 4, 0, 0, 0, 3, 8, 2, 0, 0, 0])
        let filler = [UInt8]((0..<PNGContainer.maximumChunks).map { _ in chunk("zzZz", []) }.joined())
        let exif = chunk("eXIf", EXIFBytes.tiff(values: [(0x010F, 2, 6, Array("Late\0\0".utf8))]))
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr + filler + exif + chunk("IEND", [])
        let metadata = try MetadataReader.read(bytes: png, name: "many.png")
        XCTAssertNil(metadata.make)
        XCTAssertTrue(metadata.warnings.contains { $0.hasPrefix("PNG has more than 100000 chunks") }, "\(metadata.warnings)")
        let fewer = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr + filler.dropLast(24) + exif + chunk("IEND", [])
        XCTAssertEqual(try MetadataReader.read(bytes: fewer, name: "fewer.png").make, "Late", "just under the limit it is read")
        let cut = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr + filler.dropLast(12)
        let warnings = try MetadataReader.read(bytes: cut, name: "cut.png").warnings
        XCTAssertFalse(warnings.contains { $0.contains("more than") }, "nothing was left unread: \(warnings)")
        XCTAssertTrue(warnings.contains { $0.contains("without an IEND chunk") }, "\(warnings)")
    }

    func testPNGRawProfileTextChunks() throws {
        let (directory, items) = try makeFixtures(["png"])
        var jobs: [(String, URL, URL)] = []
        for (index, (url, _)) in items.enumerated() {
            let kind = ["tEXt", "zTXt", "iTXt"][index % 3]
            jobs.append((kind, url, directory.appendingPathComponent("raw\(index)-\(kind).png")))
        }
        try ContainerVariants.make(jobs)
        try assertAllMatch(jobs.map(\.2), format: .png)
    }

    func testWebPWithAndWithoutExifPrefix() throws {
        let (directory, items) = try makeFixtures(["webp"])
        let jobs = items.enumerated().map { ("webp", $0.element.0, directory.appendingPathComponent("toggled\($0.offset).webp")) }
        try ContainerVariants.make(jobs)
        for job in jobs {
            XCTAssertNotEqual(try exifChunkHasPrefix(job.1), try exifChunkHasPrefix(job.2), "both prefix styles are covered")
        }
        try assertAllMatch(items.map(\.0) + jobs.map(\.2), format: .webp)
    }

    func testHEIC() throws {
        let (_, items) = try makeFixtures(["heic"])
        try assertAllMatch(items.map(\.0), format: .heic)
    }

    func testAVIF() throws {
        let (_, items) = try makeFixtures(["avif"])
        try assertAllMatch(items.map(\.0), format: .avif)
    }

    /// Files converted by libvips keep their EXIF; vips writes the WebP EXIF chunk with the "Exif\0\0" prefix.
    func testImagesConvertedByVipsFromATaggedJPEG() throws {
        let directory = try makeTemporaryDirectory(self)
        let jpeg = directory.appendingPathComponent("source.jpg")
        try MetadataFixtures.makeImage(jpeg)
        try MetadataFixtures.writeTags([(jpeg, CameraTags.cameras[1])])
        for (ext, format) in [("webp", ImageFormat.webp), ("png", .png), ("avif", .avif), ("heic", .heic)] {
            let url = directory.appendingPathComponent("converted.\(ext)")
            try MetadataFixtures.run("/usr/bin/vips", ["copy", jpeg.path, url.path])
            try assertAllMatch([url], format: format)
        }
    }

    func testDNGVersionMakesADNGAndRawExtensionsAreKept() throws {
        let (directory, items) = try makeFixtures(["tif"])
        let dng = directory.appendingPathComponent("raw.dng")
        try FileManager.default.copyItem(at: items[0].0, to: dng)
        try MetadataFixtures.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DNGVersion=1.4.0.0", dng.path])
        XCTAssertEqual(try MetadataReader.read(path: dng.path).format, .dng)
        let nef = directory.appendingPathComponent("raw.nef")
        try FileManager.default.copyItem(at: items[1].0, to: nef)
        let metadata = try MetadataReader.read(path: nef.path)
        XCTAssertEqual(metadata.format, .nef)
        XCTAssertEqual(metadata.model, "NIKON D850")
        XCTAssertEqual(metadata.gps?.altitude ?? 0, -12.25, accuracy: 0.01)
    }

    /// Whether the WebP file's EXIF chunk starts with "Exif\0\0".
    private func exifChunkHasPrefix(_ url: URL) throws -> Bool {
        let data = try Data(contentsOf: url)
        let chunk = try XCTUnwrap(data.range(of: Data("EXIF".utf8)))
        return data[(chunk.upperBound + 4)...].starts(with: Data("Exif".utf8) + Data([0, 0]))
    }

    /// Fujifilm RAF: a header pointing at an embedded JPEG whose APP1 holds the camera's EXIF.
    func testRAFReadsTheEXIFOfItsEmbeddedJPEG() throws {
        let directory = try makeTemporaryDirectory(self)
        let jpeg = directory.appendingPathComponent("preview.jpg")
        try MetadataFixtures.makeImage(jpeg, width: 160, height: 120)
        try MetadataFixtures.writeTags([(jpeg, CameraTags.cameras[4])])
        let preview = [UInt8](try Data(contentsOf: jpeg))
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var raf = Array("FUJIFILMCCD-RAW 0201FF383501".utf8)
        raf += Array("X-T4".utf8) + [UInt8](repeating: 0, count: 28)
        raf += [UInt8](repeating: 0, count: 84 - raf.count)
        raf += be32(120) + be32(preview.count) + [UInt8](repeating: 0, count: 120 - 92) + preview + [1, 2, 3, 4]
        let metadata = try MetadataReader.read(bytes: raf, name: "DSCF0001.RAF")
        XCTAssertEqual(metadata.format, .raf)
        XCTAssertEqual(metadata.model, "X-T4")
        XCTAssertEqual(metadata.gps?.longitude ?? 0, -21.942635, accuracy: 1e-6)
        XCTAssertNil(metadata.width, "the preview's size is not the raw image's")
        XCTAssertEqual(metadata.warnings, [])

        raf.replaceSubrange(88..<92, with: be32(10_000_000))
        XCTAssertThrowsError(try MetadataReader.read(bytes: raf, name: "broken.RAF")) { error in
            guard case .damaged(let path, .raf, let detail)? = error as? MetadataError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "broken.RAF")
            XCTAssertTrue(detail.contains("outside the file"), detail)
        }
    }
}
