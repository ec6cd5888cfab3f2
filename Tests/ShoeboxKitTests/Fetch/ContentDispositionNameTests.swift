import XCTest
@testable import ShoeboxKit

/// Content-Disposition file names (RFC 6266, RFC 8187) and when they name an original.
final class ContentDispositionNameTests: XCTestCase {
    func testFileNameFromEachFormOfTheHeader() {
        let name = ContentDispositionName.fileName
        XCTAssertEqual(name(#"attachment; filename="Tuscany 2008 - 021.jpg""#), "Tuscany 2008 - 021.jpg")
        XCTAssertEqual(name("attachment; filename=plain.jpg"), "plain.jpg", "a token")
        XCTAssertEqual(name("inline;FILENAME = spaced.jpg ; size=3"), "spaced.jpg", "names are case-insensitive")
        XCTAssertEqual(name(#"attachment; filename="a;b \"c\".jpg"; x=1"#), #"a;b "c".jpg"#, "quoted ; and escapes")
        XCTAssertEqual(name(#"attachment; filename*=UTF-8''%C3%89t%C3%A9%20%E2%82%AC.jpg; filename="fallback.jpg""#), "Été €.jpg")
        XCTAssertEqual(name(#"attachment; filename="fallback.jpg"; filename*=utf-8'en'caf%C3%A9.jpg"#), "café.jpg",
                       "filename* wins wherever it stands")
        XCTAssertEqual(name("attachment; filename*=ISO-8859-1''%E9t%E9.jpg"), "été.jpg")
        XCTAssertEqual(name(#"attachment; filename*=KOI8-R''%C1.jpg; filename="known.jpg""#), "known.jpg",
                       "a charset RFC 8187 does not require falls back to filename")
        XCTAssertEqual(name("attachment; filename*=no-quotes.jpg; filename=f.jpg"), "f.jpg", "a malformed filename*")
        XCTAssertNil(name("attachment"))
        XCTAssertNil(name("inline; size=12"))
        XCTAssertNil(name(#"attachment; filename="""#))
        XCTAssertEqual(name(#"attachment; filename="unterminated"#), "unterminated", "an unterminated quote ends with the header")
    }

    func testOnlyTheLastComponentOfAPathIsKept() {
        let name = ContentDispositionName.fileName
        XCTAssertEqual(name(#"attachment; filename="../../etc/passwd""#), "passwd")
        XCTAssertEqual(name(#"attachment; filename="/etc/shadow""#), "shadow")
        XCTAssertEqual(name(#"attachment; filename="C:\\Users\\x\\evil.jpg""#), "evil.jpg")
        XCTAssertEqual(name("attachment; filename*=UTF-8''..%2F..%2Fup.jpg"), "up.jpg")
        XCTAssertEqual(name(#"attachment; filename="a/b/""#), "b")
        XCTAssertNil(name(#"attachment; filename="///""#))
    }

    func testWhichURLNamesAreNoNames() {
        for generic in ["/", "/photos/", "/download", "/Download", "/get", "/image", "/file", "/photos/4711", "/dl/123",
                        "/get.php", "/download.aspx", "/cgi-bin/image.cgi", "/%2E%2E", "/attachment"] {
            XCTAssertTrue(ContentDispositionName.urlNameIsGeneric(generic), generic)
        }
        for named in ["/IMG_0001.jpg", "/Tuscany.jpg", "/photo-21", "/a/b/sunset", "/4711.jpg", "/download.jpg", "/x"] {
            XCTAssertFalse(ContentDispositionName.urlNameIsGeneric(named), named)
        }
    }

    func testTheStemComesFromTheHeaderOnlyWhenTheURLEndsInNoName() {
        let header = #"attachment; filename="Tuscany 2008 - 021.jpg""#
        let sha = String(repeating: "ab", count: 32)
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://h/download?id=21", sha256: sha, contentDisposition: header), "Tuscany 2008 - 021")
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://h/", sha256: sha, contentDisposition: header), "Tuscany 2008 - 021")
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://h/IMG_7.jpg", sha256: sha, contentDisposition: header), "IMG_7")
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://h/download", sha256: sha, contentDisposition: nil), "download",
                       "without a header the URL's word is still better than a hash")
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://h/download", sha256: sha, contentDisposition: #"attachment; filename="..""#),
                       "download", "a header name that sanitizes to nothing is passed over")
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://h/", sha256: sha, contentDisposition: nil), "abababababab")
        let hostile = "attachment; filename=\"..\u{1}\u{1B}/..\\\\x\u{202E}gpj.exe\""
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://h/get.php", sha256: sha, contentDisposition: hostile), "xgpj")
        let long = "attachment; filename=\"" + String(repeating: "é", count: 300) + ".jpg\""
        let stem = LibraryPathPlanner.stem(url: "http://h/", sha256: sha, contentDisposition: long)
        XCTAssertEqual(stem, String(repeating: "é", count: 50), "cut to 100 bytes, never mid-character")
    }
}
