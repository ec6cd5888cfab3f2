import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// A DNG sent as application/octet-stream (or image/tiff) was stored as .tif; it is stored
/// as .dng now, and a plain TIFF stays .tif even with a camera's Make. The files are made
/// by ImageMagick and exiftool, as a user's would be.
final class RawExtensionTests: XCTestCase {
    func testADNGSentAsOctetStreamIsStoredAsDNG() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        let folder = runner.workDirectory.path
        func make(_ name: String, _ tags: [String]) throws -> Data {
            let path = folder + "/" + name
            let convert = try ManualTool.run("/usr/bin/convert", ["-size", "16x16", "xc:red", "-compress", "none", path])
            XCTAssertEqual(convert.status, 0, convert.stderr)
            let exiftool = try ManualTool.run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + tags + [path])
            XCTAssertEqual(exiftool.status, 0, exiftool.stderr)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try FileManager.default.removeItem(atPath: path)
            return data
        }
        let dng = try make("d.tif", ["-DNGVersion=1.4.0.0", "-Make=Canon", "-DateTimeOriginal=2023:03:01 10:00:00"])
        let tiff = try make("t.tif", ["-Make=NIKON CORPORATION", "-DateTimeOriginal=2023:03:01 10:00:00"])
        func url(_ name: String, _ body: Data, _ contentType: String) -> String {
            let encoded = body.base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return server.url("/bytes/\(name)?ct=\(contentType.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&b=\(encoded)")
        }
        let cases: [(url: String, path: String, type: String)] = [
            (url("shot1", dng, "application/octet-stream"), "originals/2023/03/01/shot1.dng", "image/x-adobe-dng"),
            (url("shot2.tif", dng + [1], "image/tiff"), "originals/2023/03/01/shot2.dng", "image/x-adobe-dng"),
            (url("scan", tiff, "application/octet-stream"), "originals/2023/03/01/scan.tif", "image/tiff"),
        ]
        let output = try runner.fetch(cases.map(\.url))
        let catalog = try SQLiteCatalog(path: runner.library.path + "/catalog.sqlite", readOnly: true)
        XCTAssertEqual(output.status, 0, output.stderr)
        for (url, path, type) in cases {
            let record = output.record(url)
            XCTAssertEqual(record?["outcome"] as? String, "stored", output.stderr)
            XCTAssertEqual(record?["path"] as? String, path, "\(record ?? [:])")
            XCTAssertEqual(record?["extension"] as? String, String(path.split(separator: ".").last!))
            XCTAssertEqual(record?["warnings"] as? [String], [], "\(record ?? [:])")
            let sha256 = try XCTUnwrap(record?["sha256"] as? String)
            XCTAssertEqual(try catalog.original(sha256: sha256)?.contentType, type, "the catalog records the format")
        }
        try runner.assertConsistent()
    }
}
