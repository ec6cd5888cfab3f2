import Foundation
import ShoeboxTestSupport
import XCTest

/// fetch names an original after the response's Content-Disposition file name when the
/// URL ends in no name (`/download?id=21` was stored as download.jpg), sanitized like any name.
final class ContentDispositionTests: XCTestCase {
    func testContentDispositionNamesOriginalsWhoseURLEndsInNoName() throws {
        let server = try startFixtureServer()
        let runner = try FetchRunner(self)
        func url(_ path: String, _ seed: String, _ header: String) -> String {
            let encoded = Data(header.utf8).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return server.url("/disposition/\(path)?seed=\(seed)&date=2023:03:01%2010:00:00&h=\(encoded)")
        }
        let long = String(repeating: "x", count: 300)
        let cases: [(url: String, name: String)] = [
            (url("download", "c1", #"attachment; filename="Tuscany 2008 - 021.jpg""#), "Tuscany 2008 - 021.jpg"),
            (url("", "c2", #"attachment; filename*=UTF-8''%C3%89t%C3%A9%20%E2%82%AC.jpg; filename="fallback.jpg""#), "Été €.jpg"),
            (url("12345", "c3", #"attachment; filename="../../etc/passwd""#), "passwd.jpg"),
            (url("get.php", "c4", "attachment; filename=\"a\u{1}b\u{1B}c\u{7F}d.jpg\""), "a_b_c_d.jpg"),
            (url("image", "c5", "attachment; filename=\"\(long).jpg\""), String(repeating: "x", count: 100) + ".jpg"),
            (url("IMG_0001.jpg", "c6", #"attachment; filename="other.jpg""#), "IMG_0001.jpg"),
            (url("file", "c7", #"attachment; filename="..""#), "file.jpg"),
            (url("download", "c8", "inline; filename=\"C:\\\\Users\\\\me\\\\evil\u{202E}gpj.exe\""), "evilgpj.jpg"),
            (url("view", "c9", "attachment; filename=\"\u{FEFF}.hidden.png\""), "hidden.jpg"),
        ]
        let output = try runner.fetch(cases.map(\.url))
        XCTAssertEqual(output.status, 0, output.stderr)
        for (url, name) in cases {
            XCTAssertEqual(output.outcome(url), "stored", url)
            XCTAssertEqual(output.record(url)?["path"] as? String, "originals/2023/03/01/" + name, url)
        }
        let siblings = try FileManager.default.contentsOfDirectory(atPath: runner.workDirectory.path).filter { !$0.hasPrefix("list-") }
        XCTAssertEqual(siblings, ["library"], "nothing written beside the library")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: runner.library.path + "/originals/2023/03/01").count,
                       cases.count)
        try runner.assertConsistent()
    }
}
