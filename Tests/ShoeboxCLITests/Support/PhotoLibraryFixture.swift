import Foundation
import ShoeboxKit
import XCTest

/// A library on disk for command tests: generated photos under originals/,
/// read-only, listed in a real catalog.sqlite.
struct PhotoLibraryFixture {
    let root: String

    init(_ test: XCTestCase) throws {
        root = try makeTemporaryDirectory(test).path + "/library"
        try FileManager.default.createDirectory(atPath: root + "/originals", withIntermediateDirectories: true)
        _ = try SQLiteCatalog(path: root + "/catalog.sqlite")
    }

    @discardableResult
    static func tool(_ path: String, _ arguments: [String]) throws -> String {
        let result = try ManualTool.run(path, arguments)
        guard result.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(path) \(arguments) failed: \(result.stderr)"])
        }
        return result.stdout
    }

    /// A `width`x`height` JPEG of one colour (ImageMagick), optionally with EXIF
    /// orientation 6 and GPS (exiftool), recorded in the catalog.
    func addPhoto(_ relative: String, color: String, width: Int = 400, height: Int = 300, exif: Bool = false,
                  takenAt: String? = "2024:05:01 10:00:00") throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Self.tool("/usr/bin/convert", ["-size", "\(width)x\(height)", "xc:\(color)", path])
        if exif {
            try Self.tool("/usr/bin/exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=6",
                                                "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                                                "-GPSLongitudeRef=E", path])
        }
        try record(relative, takenAt: takenAt, latitude: exif ? 48.8584 : nil, longitude: exif ? 2.2945 : nil)
    }

    /// Records whatever file is at `relative` (made read-only) in the catalog.
    func record(_ relative: String, takenAt: String? = nil, latitude: Double? = nil, longitude: Double? = nil) throws {
        let path = root + "/" + relative
        let sha = String(try Self.tool("/usr/bin/sha256sum", [path]).prefix(64))
        chmod(path, 0o444)
        let catalog = try SQLiteCatalog(path: root + "/catalog.sqlite")
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        try catalog.insertOriginal(OriginalRecord(
            sha256: sha, path: relative, bytes: bytes, contentType: "image/jpeg", takenAt: takenAt,
            make: "Shoebox", model: "Cam 1", gpsLatitude: latitude, gpsLongitude: longitude,
            addedAt: "2024-05-02T00:00:00Z"))
        catalog.close()
    }

    func thumbnails() throws -> [ThumbnailRecord] {
        let catalog = try SQLiteCatalog(path: root + "/catalog.sqlite", readOnly: true)
        defer { catalog.close() }
        return try catalog.allThumbnails()
    }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: root + "/" + relative) }
}
