import Foundation
import XCTest

/// Makes test images with the reference tools (ImageMagick, libvips, exiftool)
/// and reads back what they contain.
enum ImageFixtures {
    /// The real ImageMagick (a `convert` earlier on PATH may be a stand-in).
    static let convert = "/usr/bin/convert"

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        try ToolProcess.run(tool, arguments)
    }

    /// An upright landscape image, top half `top`, bottom half `bottom`, stored
    /// rotated 90° anticlockwise with EXIF Orientation 6 (so it displays upright),
    /// with GPS, camera and capture date in its EXIF.
    static func rotatedJPEG(at path: String, width: Int = 600, height: Int = 400,
                            top: String = "red", bottom: String = "blue", date: String = "2024:05:01 10:20:30") throws {
        let upright = path + ".upright.png"
        try run(convert, ["-size", "\(width)x\(height / 2)", "xc:\(top)", "-size", "\(width)x\(height - height / 2)",
                          "xc:\(bottom)", "-append", upright])
        try run(convert, [upright, "-rotate", "-90", "-quality", "92", path])
        try FileManager.default.removeItem(atPath: upright)
        try run("exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=6", "-Make=Shoebox Labs",
                             "-Model=Test <Cam> & Co", "-DateTimeOriginal=\(date)",
                             "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                             "-GPSLongitudeRef=E", path])
    }

    /// A plain image of one colour.
    static func solid(at path: String, width: Int, height: Int, color: String) throws {
        try run(convert, ["-size", "\(width)x\(height)", "xc:\(color)", "-quality", "95", path])
    }

    /// The pixel values at (x, y).
    static func pixel(_ path: String, x: Int, y: Int) throws -> [Int] {
        try run("vips", ["getpoint", path, "\(x)", "\(y)"]).split(separator: " ")
            .compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.map { Int($0.rounded()) }
    }

    /// Width and height from the file's header.
    static func size(_ path: String) throws -> (Int, Int) {
        let width = try run("vipsheader", ["-f", "width", path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let height = try run("vipsheader", ["-f", "height", path]).trimmingCharacters(in: .whitespacesAndNewlines)
        return (Int(width) ?? -1, Int(height) ?? -1)
    }

    /// Every tag exiftool finds, as "Group:Name" -> value.
    static func tags(_ path: String) throws -> [String: Any] {
        let json = try run("exiftool", ["-j", "-G1", "-n", path])
        let array = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        return array?.first ?? [:]
    }
}
