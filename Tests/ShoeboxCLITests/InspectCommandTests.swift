import Foundation
import XCTest
import ShoeboxKit

/// `shoebox inspect` as a user runs it: output against exiftool, exit statuses,
/// broken files among good ones, directories and the library catalog.
final class InspectCommandTests: XCTestCase {
    private func tool(_ path: String, _ arguments: [String]) throws -> String {
        let result = try ManualTool.run(path, arguments)
        XCTAssertEqual(result.status, 0, "\(path) \(arguments)")
        return result.stdout
    }

    /// Made once for the class; tests add their own files elsewhere.
    nonisolated(unsafe) private static var shared: Result<(URL, [URL]), Error>?

    override class func tearDown() {
        if case .success(let (directory, _))? = shared { try? FileManager.default.removeItem(at: directory) }
        shared = nil
        super.tearDown()
    }

    /// The shared photos and the folder holding only them.
    private func photos() throws -> (URL, [URL]) {
        if Self.shared == nil {
            Self.shared = Result {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-inspect-\(UUID().uuidString)")
                return (directory, try makePhotos(in: directory))
            }
        }
        return try Self.shared!.get()
    }

    /// Two tagged JPEGs (north-east, south-west below sea level) and a PNG.
    private func makePhotos(in directory: URL) throws -> [URL] {
        let urls = ["a/north.jpg", "b/south.jpg", "b/c/tagged.png"].map { directory.appendingPathComponent($0) }
        for url in urls {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = try tool("/usr/bin/vips", ["black", url.path, "32", "24", "--bands", "3"])
        }
        let common = ["-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS R5", "-DateTimeOriginal=2024:05:01 12:00:00",
                      "-OffsetTimeOriginal=+02:00", "-ExposureTime=1/250", "-FNumber=2.8", "-ISO=100", "-FocalLength=35",
                      "-LensModel=RF24-70mm F2.8 L IS USM", "-Software=Firmware 1.0.0"]
        _ = try tool("/usr/bin/exiftool", common + ["-Orientation#=6", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
                                                   "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", "-GPSAltitude=35",
                                                   "-GPSAltitudeRef#=0", urls[0].path])
        _ = try tool("/usr/bin/exiftool", common + ["-Orientation#=3", "-GPSLatitude=31.5", "-GPSLatitudeRef=S",
                                                   "-GPSLongitude=35.5", "-GPSLongitudeRef=W", "-GPSAltitude=430.5",
                                                   "-GPSAltitudeRef#=1", urls[1].path, urls[2].path])
        // Text that looks like a number: exiftool prints it unquoted, and so must we.
        _ = try tool("/usr/bin/exiftool", ["-q", "-overwrite_original", "-Software=1.10", "-Model=100", urls[2].path])
        return urls
    }

    private let sharedKeys = [
        "SourceFile", "Make", "Model", "LensModel", "DateTimeOriginal", "OffsetTimeOriginal", "Orientation", "ExposureTime",
        "FNumber", "ISO", "FocalLength", "GPSLatitude", "GPSLongitude", "GPSAltitude", "ImageWidth", "ImageHeight", "Software",
    ]

    func testJSONMatchesExiftoolForTheSharedKeys() throws {
        let urls = try photos().1
        let result = try ShoeboxProcess.run(["inspect", "--json"] + urls.map(\.path))
        XCTAssertEqual(result.status, 0, result.stderr)
        let ours = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let exiftoolOutput = try tool("/usr/bin/exiftool", ["-json", "-n"] + urls.map(\.path))
        let theirs = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(exiftoolOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(ours.count, 3)
        guard ours.count == 3 else { return }  // the indexes below would trap
        for (mine, reference) in zip(ours, theirs) {
            for key in sharedKeys {
                let expected = reference[key], actual = mine[key]
                XCTAssertEqual(actual == nil, expected == nil, "\(key) presence for \(reference["SourceFile"] ?? "")")
                if let number = expected as? NSNumber, !(expected is String) {
                    let tolerance = key == "GPSAltitude" ? 0.01 : 1e-6
                    XCTAssertEqual((actual as? NSNumber)?.doubleValue ?? .nan, number.doubleValue, accuracy: tolerance, key)
                } else if let text = expected as? String {
                    XCTAssertEqual(actual as? String, text, key)
                }
            }
            XCTAssertEqual((mine["FileSize"] as? NSNumber)?.intValue, (reference["FileSize"] as? NSNumber)?.intValue)
            XCTAssertEqual(mine["FileType"] as? String, reference["FileType"] as? String)
        }
        XCTAssertEqual((ours[1]["GPSLongitude"] as? NSNumber)?.doubleValue ?? 0, -35.5, accuracy: 1e-9)
        XCTAssertTrue(result.stdout.contains("\"Software\": 1.10"), "number-like text unquoted as exiftool does")
        XCTAssertTrue(result.stdout.contains("\"Model\": 100,"))
        XCTAssertEqual((ours[1]["GPSAltitude"] as? NSNumber)?.doubleValue ?? 0, -430.5, accuracy: 1e-9)
    }

    func testOneUnreadableFileIsOneFile() throws {
        let missing = try makeTemporaryDirectory(self).appendingPathComponent("missing.jpg")
        let result = try ShoeboxProcess.run(["inspect", missing.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("inspect: 1 of 1 file could not be read"), result.stderr)
    }

    func testHumanBlockSpellsOutEveryField() throws {
        let urls = try photos().1
        let result = try ShoeboxProcess.run(["inspect", urls[1].path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expectedLines = [
            urls[1].path,
            "  Format       JPEG, 32 × 24 px",
            "  Camera       Canon EOS R5",
            "  Lens         RF24-70mm F2.8 L IS USM",
            "  Taken        2024-05-01 12:00:00 +02:00",
            "  Exposure     1/250 s, f/2.8, ISO 100, 35 mm",
            "  Orientation  rotated 180° (3)",
            "  GPS          31.500000 S, 35.500000 W, altitude -430.50 m",
            "  Software     Firmware 1.0.0",
        ]
        for line in expectedLines {
            XCTAssertTrue(result.stdout.contains(line), "missing \(line) in:\n\(result.stdout)")
        }
    }

    /// An altitude without latitude and longitude is shown on its own, and under --json as
    /// exiftool -n reports it (-123.5); before, it was not shown at all.
    func testAltitudeWithoutAPositionIsShown() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("altitude.jpg")
        _ = try tool("/usr/bin/vips", ["black", url.path, "32", "24", "--bands", "3"])
        _ = try tool("/usr/bin/exiftool", ["-q", "-overwrite_original", "-GPSAltitude=123.5", "-GPSAltitudeRef#=1", url.path])
        let block = try ShoeboxProcess.run(["inspect", url.path])
        XCTAssertEqual(block.status, 0, block.stderr)
        XCTAssertTrue(block.stdout.contains("  GPS          altitude -123.50 m, no position"), block.stdout)
        let json = try ShoeboxProcess.run(["inspect", "--all", "--json", url.path])
        let object = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])?.first)
        let reference = try tool("/usr/bin/exiftool", ["-json", "-n", "-GPSAltitude", url.path])
        let expected = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(reference.utf8)) as? [[String: Any]])?.first)
        XCTAssertEqual((expected["GPSAltitude"] as? NSNumber)?.doubleValue, -123.5)
        XCTAssertEqual((object["GPSAltitude"] as? NSNumber)?.doubleValue, -123.5, "signed, not the raw tag's 123.5")
    }

    /// With --all --json, every key also in `exiftool -json -n`'s object has exiftool's value: before,
    /// ShutterSpeedValue, ApertureValue and MaxApertureValue were APEX numbers, GPSTimeStamp
    /// "9 54 28.5", ComponentsConfiguration "01 02 03 00" and the XP tags lists of UCS-2 bytes.
    func testAllJSONKeysSharedWithExiftoolHaveItsValues() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("converted.jpg")
        _ = try tool("/usr/bin/vips", ["black", url.path, "32", "24", "--bands", "3"])
        _ = try tool("/usr/bin/exiftool", ["-q", "-overwrite_original",
            "-XPTitle=Sunset über Zürich", "-XPComment=A comment", "-XPAuthor=Ann", "-XPKeywords=sea;sky", "-XPSubject=Subj",
            "-ShutterSpeedValue=0.004", "-ApertureValue=2.8", "-MaxApertureValue=1.8", "-GPSTimeStamp=09:54:28.5",
            "-GPSLatitude=10", "-GPSLatitudeRef=N", "-GPSLongitude=20", "-GPSLongitudeRef=E", url.path])
        let json = try ShoeboxProcess.run(["inspect", "--all", "--json", url.path])
        XCTAssertEqual(json.status, 0, json.stderr)
        let ours = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])?.first)
        let reference = try tool("/usr/bin/exiftool", ["-json", "-n", url.path])
        let theirs = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(reference.utf8)) as? [[String: Any]])?.first)
        let shared = Set(ours.keys).intersection(theirs.keys).subtracting(["SourceFile"])
        for key in ["ShutterSpeedValue", "ApertureValue", "MaxApertureValue", "GPSTimeStamp", "ComponentsConfiguration",
                    "XPTitle", "XPComment", "XPAuthor", "XPKeywords", "XPSubject"] {
            XCTAssertTrue(shared.contains(key), key)
        }
        for key in shared.sorted() {
            // exiftool -json quotes a number with more than 16 decimals ("0.00399999999629052").
            let number = { (value: Any?) -> Double? in (value as? NSNumber)?.doubleValue ?? (value as? String).flatMap(Double.init) }
            if let expected = number(theirs[key]), let value = number(ours[key]) {
                XCTAssertEqual(value, expected, accuracy: abs(expected) * 1e-12, key)
            } else {
                XCTAssertEqual(ours[key] as? String, theirs[key] as? String, key)
            }
        }
    }

    func testAllGroupsTagsByIFDWithSpecificationNames() throws {
        let urls = try photos().1
        let result = try ShoeboxProcess.run(["inspect", "--all", urls[0].path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let text = result.stdout
        let ifd0 = try XCTUnwrap(text.range(of: "  [IFD0]")), exif = try XCTUnwrap(text.range(of: "  [ExifIFD]"))
        let gps = try XCTUnwrap(text.range(of: "  [GPS]"))
        XCTAssertLessThan(ifd0.lowerBound, exif.lowerBound)
        XCTAssertLessThan(exif.lowerBound, gps.lowerBound)
        XCTAssertTrue(text[ifd0.upperBound..<exif.lowerBound].contains("    Make"))
        XCTAssertTrue(text[exif.upperBound..<gps.lowerBound].contains("    ISOSpeedRatings"))
        XCTAssertTrue(text[exif.upperBound..<gps.lowerBound].contains("    ExposureTime                 1/250"))
        XCTAssertTrue(text[gps.upperBound...].contains("    GPSLatitudeRef               N"))

        let json = try ShoeboxProcess.run(["inspect", "--all", "--json", urls[0].path])
        let object = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])?.first)
        XCTAssertEqual(object["GPSLatitudeRef"] as? String, "N")
        XCTAssertEqual((object["ISOSpeedRatings"] as? NSNumber)?.intValue, 100)
        let reference = try tool("/usr/bin/exiftool", ["-json", "-n", "-ExifVersion", "-ResolutionUnit", urls[0].path])
        let expected = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(reference.utf8)) as? [[String: Any]])?.first)
        XCTAssertNotNil(expected["ExifVersion"])
        XCTAssertEqual(object["ExifVersion"] as? String, expected["ExifVersion"] as? String)
        XCTAssertEqual((object["ResolutionUnit"] as? NSNumber)?.intValue, (expected["ResolutionUnit"] as? NSNumber)?.intValue)
        XCTAssertEqual((object["GPSLatitude"] as? NSNumber)?.doubleValue ?? 0, 48.8584, accuracy: 1e-9, "shared key wins over the raw tag")
    }

    func testBrokenFilesGetAnErrorAndTheOthersGoOn() throws {
        let directory = try makeTemporaryDirectory(self)
        let urls = try photos().1
        let empty = directory.appendingPathComponent("empty.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        let html = directory.appendingPathComponent("page.jpg")
        try Data("<html>not found</html>".utf8).write(to: html)
        let missing = directory.appendingPathComponent("missing.jpg")
        let result = try ShoeboxProcess.run(["inspect", "--json", empty.path, urls[0].path, html.path, missing.path])
        XCTAssertEqual(result.status, 1)
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.map { $0["SourceFile"] as? String }, [empty.path, urls[0].path, html.path, missing.path])
        guard objects.count == 4 else { return }
        XCTAssertTrue((objects[0]["Error"] as? String)?.contains("empty") ?? false)
        XCTAssertNil(objects[1]["Error"])
        XCTAssertEqual(objects[1]["Make"] as? String, "Canon")
        XCTAssertTrue((objects[2]["Error"] as? String)?.contains("not a recognised image") ?? false)
        XCTAssertTrue((objects[3]["Error"] as? String)?.contains("No such file") ?? false)
        XCTAssertTrue(result.stderr.contains("3 of 4 files could not be read"), result.stderr)

        let human = try ShoeboxProcess.run(["inspect", empty.path, urls[0].path])
        XCTAssertEqual(human.status, 1)
        XCTAssertTrue(human.stdout.contains("Canon EOS R5"))
        XCTAssertTrue(human.stderr.contains("\(empty.path): the file is empty"), human.stderr)
    }

    func testDirectoriesAreRecursedInPathOrder() throws {
        let (directory, urls) = try photos()
        try Data("notes".utf8).write(to: directory.appendingPathComponent("b/readme.txt"))  // not a photo: skipped
        try Data("<html>".utf8).write(to: directory.appendingPathComponent("b/.hidden.jpg"))  // hidden: skipped
        let result = try ShoeboxProcess.run(["inspect", "--json", directory.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.map { $0["SourceFile"] as? String }, [urls[0].path, urls[2].path, urls[1].path])
    }

    func testUsageWithoutPathOrLibrary() throws {
        let result = try ShoeboxProcess.run(["inspect"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("PATH"), result.stderr)
        XCTAssertEqual(try ShoeboxProcess.run(["inspect", "--bogus"]).status, 2)
    }

    func testLibraryWithoutCatalogIsUnusable() throws {
        let directory = try makeTemporaryDirectory(self)
        let result = try ShoeboxProcess.run(["inspect", "--library", directory.path])
        XCTAssertEqual(result.status, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains("has no catalog.sqlite"), result.stderr)
        let missing = try ShoeboxProcess.run(["inspect", "--library", directory.appendingPathComponent("nowhere").path])
        XCTAssertEqual(missing.status, 4, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("does not exist"), missing.stderr)
    }

    func testLibraryWithoutPathInspectsTheCatalogInLibraryOrder() throws {
        let library = try makeTemporaryDirectory(self)
        let sources = try photos().1
        let layout = LibraryLayout(root: library.path)
        let relative = ["originals/2024/05/01/b.jpg", "originals/2023/01/02/a.jpg"]
        let catalog = try SQLiteCatalog(path: layout.catalog)
        for (index, path) in relative.enumerated() {
            let target = URL(fileURLWithPath: layout.absolute(path))
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: sources[index], to: target)
            try catalog.insertOriginal(OriginalRecord(
                sha256: String(repeating: "\(index)", count: 64), path: path, bytes: 1, contentType: "image/jpeg",
                addedAt: "2024-05-01T00:00:00Z"))
        }
        catalog.close()
        let result = try ShoeboxProcess.run(["inspect", "--json", "--library", library.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.map { $0["SourceFile"] as? String }, [layout.absolute(relative[1]), layout.absolute(relative[0])])
        guard objects.count == 2 else { return }
        XCTAssertEqual((objects[0]["GPSLongitude"] as? NSNumber)?.doubleValue ?? 0, -35.5, accuracy: 1e-9)
        XCTAssertEqual((objects[1]["GPSLongitude"] as? NSNumber)?.doubleValue ?? 0, 2.2945, accuracy: 1e-9)

        let inside = try ShoeboxProcess.run(["inspect", "--json", "--library", library.path, "originals/2023"])
        XCTAssertEqual(inside.status, 0, inside.stderr)
        let found = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inside.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(found.map { $0["SourceFile"] as? String }, [layout.absolute(relative[1])])
    }

    /// The bundled sample photos (several formats, cameras, hemispheres): every shared key as exiftool says.
    func testBundledSamplesMatchExiftool() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/photos")
        let names = try FileManager.default.contentsOfDirectory(atPath: samples.path).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 5)
        let paths = names.map { samples.appendingPathComponent($0).path }
        let result = try ShoeboxProcess.run(["inspect", "--json"] + paths)
        XCTAssertEqual(result.status, 0, result.stderr)
        let ours = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let reference = try tool("/usr/bin/exiftool", ["-json", "-n"] + paths)
        let theirs = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reference.utf8)) as? [[String: Any]])
        XCTAssertEqual(ours.count, theirs.count)
        for (mine, expected) in zip(ours, theirs) {
            let file = expected["SourceFile"] as? String ?? "?"
            XCTAssertNil(mine["Warning"], file)
            for key in sharedKeys {
                XCTAssertEqual(mine[key] == nil, expected[key] == nil, "\(key) presence for \(file)")
                if let text = expected[key] as? String {
                    XCTAssertEqual(mine[key] as? String, text, "\(key) of \(file)")
                } else if let number = expected[key] as? NSNumber {
                    let tolerance = key == "GPSAltitude" ? 0.01 : 1e-6
                    XCTAssertEqual((mine[key] as? NSNumber)?.doubleValue ?? .nan, number.doubleValue, accuracy: tolerance, "\(key) of \(file)")
                }
            }
        }
    }
}
