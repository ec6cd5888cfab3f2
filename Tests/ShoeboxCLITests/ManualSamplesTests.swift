import XCTest
import ShoeboxKit

/// The bundled samples: small, varied as samples/README.md promises, listed in
/// samples/urls.txt, and served by samples/serve.py the way the demo expects.
final class ManualSamplesTests: XCTestCase {
    let photos = URL(fileURLWithPath: ManualTool.path("samples/photos"))

    private func photoNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    func testSamplesStayUnderTwoMegabytes() throws {
        let folder = ManualTool.path("samples")
        var total = 0
        for case let relative as String in FileManager.default.enumerator(atPath: folder)! {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + relative)
            if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? Int) ?? 0 }
        }
        XCTAssertLessThan(total, 2_000_000)
        XCTAssertGreaterThanOrEqual(try photoNames().count, 5)
    }

    func testSamplesCoverTheFormatsCamerasHemispheresAndOrientationsTheReadmeLists() throws {
        var formats = Set<ImageFormat>()
        for name in try photoNames() {
            let bytes = try Data(contentsOf: photos.appendingPathComponent(name)).prefix(FormatSniffer.prefixLength)
            formats.insert(try XCTUnwrap(FormatSniffer.sniff(bytes), "\(name) is no image format"))
        }
        XCTAssertTrue(formats.isSuperset(of: [.jpeg, .png, .webp, .heic]), "\(formats)")

        let result = try ManualTool.run("exiftool", ["-json", "-n", "-Make", "-Orientation", "-GPSLatitude", "-GPSLongitude",
                                                     "-GPSAltitude", "-DateTimeOriginal", "-EXIF:all", photos.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let records = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(records.count, try photoNames().count)
        let makes = Set(records.compactMap { $0["Make"] as? String })
        let orientations = Set(records.compactMap { $0["Orientation"] as? Int })
        let latitudes = records.compactMap { $0["GPSLatitude"] as? Double }
        let longitudes = records.compactMap { $0["GPSLongitude"] as? Double }
        XCTAssertGreaterThanOrEqual(makes.count, 4, "\(makes)")
        XCTAssertTrue(orientations.isSuperset(of: [1, 3, 6, 8]), "\(orientations)")
        XCTAssertTrue(latitudes.contains { $0 > 0 } && latitudes.contains { $0 < 0 }, "both hemispheres: \(latitudes)")
        XCTAssertTrue(longitudes.contains { $0 > 0 } && longitudes.contains { $0 < 0 }, "east and west: \(longitudes)")
        XCTAssertTrue(records.contains { ($0["GPSAltitude"] as? Double).map { $0 < 0 } ?? false }, "one below sea level")
        XCTAssertTrue(records.contains { $0["Make"] == nil && $0["DateTimeOriginal"] == nil }, "one photo without EXIF")
    }

    /// Each row of the table in samples/README.md against exiftool's reading of the photo.
    func testReadmeTableTellsWhatEachPhotoCarries() throws {
        let readme = try String(contentsOfFile: ManualTool.path("samples/README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| `photos/") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\u{2212}", with: "-") } }
        XCTAssertEqual(Set(rows.map { $0[0].replacingOccurrences(of: "`photos/", with: "").replacingOccurrences(of: "`", with: "") }),
                       Set(try photoNames()), "one row per photo")
        for row in rows {
            let name = row[0].replacingOccurrences(of: "`", with: "")
            let result = try ManualTool.run("exiftool", ["-json", "-n", "-Make", "-Model", "-DateTimeOriginal", "-OffsetTimeOriginal",
                                                         "-GPSLatitude", "-GPSLongitude", "-GPSAltitude", "-Orientation",
                                                         ManualTool.path("samples/" + name)])
            let tags = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])?.first)
            let camera = row[2].components(separatedBy: " / ")
            if camera.count == 2 {
                XCTAssertEqual(tags["Make"] as? String, camera[0], name)
                XCTAssertEqual(tags["Model"] as? String, camera[1], name)
                let taken = row[3].split(separator: " ")
                XCTAssertEqual(tags["DateTimeOriginal"] as? String, "\(taken[0].replacingOccurrences(of: "-", with: ":")) \(taken[1])", name)
                XCTAssertEqual(tags["OffsetTimeOriginal"] as? String, taken[2].hasPrefix("(") ? nil : String(taken[2]), name)
                XCTAssertEqual(tags["Orientation"] as? Int, Int(row[5].prefix { $0.isNumber }), name)
            } else {
                XCTAssertNil(tags["Make"], name)
                XCTAssertNil(tags["DateTimeOriginal"], name)
            }
            guard row[4] != "none" else {
                XCTAssertNil(tags["GPSLatitude"], name)
                continue
            }
            // "59.9075 N, 10.7530 E, 12.5 m"
            let parts = row[4].components(separatedBy: ", ").map { $0.split(separator: " ") }
            let latitude = Double(parts[0][0])! * (parts[0][1] == "S" ? -1 : 1)
            let longitude = Double(parts[1][0])! * (parts[1][1] == "W" ? -1 : 1)
            XCTAssertEqual(tags["GPSLatitude"] as? Double ?? .nan, latitude, accuracy: 1e-6, name)
            XCTAssertEqual(tags["GPSLongitude"] as? Double ?? .nan, longitude, accuracy: 1e-6, name)
            XCTAssertEqual(tags["GPSAltitude"] as? Double ?? .nan, Double(parts[2][0])!, accuracy: 1e-6, name)
        }
    }

    func testServerAnswersEveryListedURLAsTheListSays() throws {
        let work = try makeTemporaryDirectory(self)
        let portFile = work.appendingPathComponent("port").path
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", ManualTool.path("samples/serve.py"), "--port", "0", "--port-file", portFile]
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }
        var port = ""
        for _ in 0..<100 where port.isEmpty {
            port = ((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if port.isEmpty { usleep(100_000) }
        }
        XCTAssertFalse(port.isEmpty, "serve.py did not start")

        let list = try String(contentsOfFile: ManualTool.path("samples/urls.txt"), encoding: .utf8)
        let urls = list.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        XCTAssertTrue(urls.allSatisfy { $0.hasPrefix("http://127.0.0.1:8000/") }, "the demo rewrites 127.0.0.1:8000")
        let listed = Set(urls.filter { $0.contains("/photos/") }.map { String($0.split(separator: "/").last!) })
        XCTAssertTrue(listed.isSuperset(of: try photoNames()), "every sample photo is in urls.txt")

        var statuses: [String: Int] = [:]
        for url in Set(urls) {
            let live = url.replacingOccurrences(of: "127.0.0.1:8000", with: "127.0.0.1:\(port)")
            let output = work.appendingPathComponent("body").path
            let curl = try ManualTool.run("curl", ["-s", "-o", output, "-w", "%{http_code} %{content_type}", live])
            let parts = curl.stdout.split(separator: " ", maxSplits: 1).map(String.init)
            statuses[url] = Int(parts[0]) ?? 0
            let name = String(url.split(separator: "/").last!)
            if try photoNames().contains(name) {
                XCTAssertEqual(statuses[url], 200, url)
                XCTAssertTrue(parts.count == 2 && parts[1].hasPrefix("image/"), "\(url): \(curl.stdout)")
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), try Data(contentsOf: photos.appendingPathComponent(name)))
            } else if name == "expired-link.jpg" {
                XCTAssertEqual(curl.stdout, "200 text/html; charset=utf-8", "an HTML page served as 200")
            } else {
                XCTAssertEqual(statuses[url], 404, url)
            }
        }
        XCTAssertTrue(urls.contains { $0.hasSuffix("/expired-link.jpg") } && statuses.values.contains(404), "the list has failures on purpose")
        XCTAssertGreaterThan(urls.count, Set(urls).count, "one URL is listed twice")

        // Revalidation: the ETag sent back gives 304 Not Modified.
        let photo = "http://127.0.0.1:\(port)/photos/\(try photoNames()[0])"
        let headers = try ManualTool.run("curl", ["-s", "-D", "-", "-o", "/dev/null", photo]).stdout
        let etag = try XCTUnwrap(headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }).dropFirst(5)
            .trimmingCharacters(in: .whitespaces)
        let revalidated = try ManualTool.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)", photo])
        XCTAssertEqual(revalidated.stdout, "304")
    }
}
