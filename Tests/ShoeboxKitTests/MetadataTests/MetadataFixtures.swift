import Foundation
import ShoeboxKit
import XCTest

/// Tags to write into a fixture, as one camera would.
struct CameraTags {
    var make = "Canon"
    var model = "Canon EOS 5D Mark IV"
    var lens = "EF24-70mm f/2.8L II USM"
    var software = "Firmware Version 1.0.4"
    var dateTimeOriginal = "2024:05:01 12:34:56"
    var offsetTimeOriginal: String? = "+02:00"
    var orientation = 1
    var exposureTime = "1/250"
    var fNumber = 2.8
    var iso = 100
    var focalLength = 35.0
    var latitude: Double? = 48.858370
    var longitude: Double? = 2.294481
    var altitude: Double? = 35.5

    /// exiftool arguments writing these tags (numeric values with `#`).
    var exiftoolArguments: [String] {
        var args = [
            "-Make=\(make)", "-Model=\(model)", "-LensModel=\(lens)", "-Software=\(software)",
            "-DateTimeOriginal=\(dateTimeOriginal)", "-CreateDate=\(dateTimeOriginal)",
            "-Orientation#=\(orientation)", "-ExposureTime=\(exposureTime)", "-FNumber=\(fNumber)",
            "-ISO=\(iso)", "-FocalLength=\(focalLength)",
        ]
        if let offsetTimeOriginal { args.append("-OffsetTimeOriginal=\(offsetTimeOriginal)") }
        if let latitude, let longitude {
            args += ["-GPSLatitude=\(abs(latitude))", "-GPSLatitudeRef=\(latitude < 0 ? "S" : "N")",
                     "-GPSLongitude=\(abs(longitude))", "-GPSLongitudeRef=\(longitude < 0 ? "W" : "E")"]
        }
        if let altitude {
            args += ["-GPSAltitude=\(abs(altitude))", "-GPSAltitudeRef#=\(altitude < 0 ? 1 : 0)"]
        }
        return args
    }

    static let cameras: [CameraTags] = [
        CameraTags(),
        CameraTags(make: "NIKON CORPORATION", model: "NIKON D850      ", lens: "AF-S NIKKOR 70-200mm f/2.8E FL ED VR",
                   software: "  Ver.1.10", dateTimeOriginal: "2023:12:24 18:05:09", offsetTimeOriginal: "-03:00",
                   orientation: 6, exposureTime: "1/8000", fNumber: 4.0, iso: 6400, focalLength: 200,
                   latitude: -33.856784, longitude: -70.648270, altitude: -12.25),
        CameraTags(make: "Apple", model: "iPhone 13 Pro", lens: "iPhone 13 Pro back triple camera 5.7mm f/1.5",
                   software: "17.4.1", dateTimeOriginal: "2024:07:14 09:00:01", offsetTimeOriginal: "+09:00",
                   orientation: 8, exposureTime: "1/60", fNumber: 1.5, iso: 50, focalLength: 5.7,
                   latitude: 35.658581, longitude: 139.745433, altitude: 3776.24),
        CameraTags(make: "SONY", model: "ILCE-7M3", lens: "FE 24-105mm F4 G OSS", software: "ILCE-7M3 v4.01",
                   dateTimeOriginal: "2022:01:02 03:04:05", offsetTimeOriginal: nil, orientation: 3,
                   exposureTime: "2.5", fNumber: 22, iso: 3200, focalLength: 105,
                   latitude: -0.000123, longitude: 179.999999, altitude: -415.5),
        CameraTags(make: "FUJIFILM", model: "X-T4", lens: "XF16-55mmF2.8 R LM WR", software: "Digital Camera X-T4 Ver2.00",
                   dateTimeOriginal: "2021:06:21 23:59:59", offsetTimeOriginal: "+00:00", orientation: 2,
                   exposureTime: "1/4000", fNumber: 5.6, iso: 160, focalLength: 23.4,
                   latitude: 64.146582, longitude: -21.942635, altitude: nil),
    ]
}

/// Makes small images with vips and writes tags into them with exiftool (one
/// exiftool process for a whole batch), and reads them back with exiftool as the oracle.
enum MetadataFixtures {
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        try ToolProcess.run(tool, arguments)
    }

    /// A black RGB image of the given size in the format of `url`'s extension.
    static func makeImage(_ url: URL, width: Int = 64, height: Int = 48) throws {
        try run("/usr/bin/vips", ["black", url.path, "\(width)", "\(height)", "--bands", "3"])
    }

    /// A JPEG in `folder` with the default `CameraTags` (a Canon): its bytes, and its metadata as
    /// MetadataReader reads it.
    static func cameraJPEG(in folder: URL) throws -> (data: Data, metadata: PhotoMetadata) {
        let jpeg = folder.appendingPathComponent("camera.jpg")
        try makeImage(jpeg)
        try writeTags([(jpeg, CameraTags())])
        return (try Data(contentsOf: jpeg), try MetadataReader.read(path: jpeg.path))
    }

    /// Writes each file's tags, all in one exiftool process.
    static func writeTags(_ items: [(URL, CameraTags)]) throws {
        var lines: [String] = []
        for (index, (url, tags)) in items.enumerated() {
            if index > 0 { lines.append("-execute") }
            lines += ["-q", "-overwrite_original"] + tags.exiftoolArguments + [url.path]
        }
        let argfile = FileManager.default.temporaryDirectory.appendingPathComponent("exiftool-args-\(UUID().uuidString)")
        try lines.joined(separator: "\n").write(to: argfile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: argfile) }
        try run("/usr/bin/exiftool", ["-@", argfile.path])
    }

    static let oracleKeys = [
        "Make", "Model", "LensModel", "DateTimeOriginal", "DateCreated", "TimeCreated", "OffsetTimeOriginal", "Orientation", "ExposureTime",
        "FNumber", "ISO", "FocalLength", "GPSLatitude", "GPSLongitude", "GPSAltitude",
        "ImageWidth", "ImageHeight", "Software",
    ]

    /// `exiftool -json -n` for the shared keys, one object per file, keyed by path.
    static func exiftool(_ urls: [URL]) throws -> [String: [String: Any]] {
        let json = try run("/usr/bin/exiftool", ["-json", "-n"] + oracleKeys.map { "-" + $0 } + urls.map(\.path))
        let array = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        var byPath: [String: [String: Any]] = [:]
        for object in array {
            if let path = object["SourceFile"] as? String { byPath[path] = object }
        }
        return byPath
    }
}
