import XCTest
@testable import ShoeboxKit

final class FetchRulesTests: XCTestCase {
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]

    func testSniffsEveryCommonFormat() {
        func ftyp(_ brand: String) -> [UInt8] { [0, 0, 0, 24] + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0] + Array("mif1".utf8) + Array(repeating: 0, count: 8) }
        XCTAssertEqual(FormatSniffer.sniff(jpeg), .jpeg)
        XCTAssertEqual(FormatSniffer.sniff(png), .png)
        XCTAssertEqual(FormatSniffer.sniff(Array("GIF89a".utf8)), .gif)
        XCTAssertEqual(FormatSniffer.sniff(Array("RIFF".utf8) + [1, 0, 0, 0] + Array("WEBPVP8 ".utf8)), .webp)
        XCTAssertEqual(FormatSniffer.sniff(ftyp("heic")), .heic)
        XCTAssertEqual(FormatSniffer.sniff(ftyp("avif")), .avif)
        XCTAssertEqual(FormatSniffer.sniff(ftyp("mif1")), .heif)
        XCTAssertEqual(FormatSniffer.sniff([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]), .tiff)
        XCTAssertEqual(FormatSniffer.sniff([0x49, 0x49, 0x2A, 0, 16, 0, 0, 0, 0x43, 0x52, 2, 0]), .cr2)
        XCTAssertEqual(FormatSniffer.sniff([0xFF, 0x0A, 0, 0]), .jxl)
        XCTAssertNil(FormatSniffer.sniff(Array("<!doctype html>".utf8)))
        XCTAssertNil(FormatSniffer.sniff([UInt8]()))
        XCTAssertNil(FormatSniffer.sniff(Array("BMnot really".utf8)), "BM alone is not enough")
    }

    func testContentTypeDecisions() {
        XCTAssertEqual(ContentTypeRules.decide(contentType: "image/jpeg", prefix: jpeg, bodyBytes: 10), .accept(.jpeg, warnings: []))
        XCTAssertEqual(ContentTypeRules.decide(contentType: "IMAGE/JPEG; charset=x", prefix: jpeg, bodyBytes: 10), .accept(.jpeg, warnings: []))
        XCTAssertEqual(ContentTypeRules.decide(contentType: nil, prefix: png, bodyBytes: 10), .accept(.png, warnings: []))
        XCTAssertEqual(ContentTypeRules.decide(contentType: "binary/octet-stream", prefix: png, bodyBytes: 10), .accept(.png, warnings: []))
        XCTAssertEqual(ContentTypeRules.decide(contentType: "image/*", prefix: png, bodyBytes: 10), .accept(.png, warnings: []),
                       "a wildcard names no format: nothing to disagree with")
        guard case .accept(.jpeg, let warnings) = ContentTypeRules.decide(contentType: "image/png", prefix: jpeg, bodyBytes: 10) else {
            return XCTFail("bytes win")
        }
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].hasPrefix("content-type-mismatch"))
        let hostile = "image/" + String(repeating: "x", count: 50_000)
        guard case .accept(.jpeg, let long) = ContentTypeRules.decide(contentType: hostile, prefix: jpeg, bodyBytes: 10),
              case .reject(let reason) = ContentTypeRules.decide(contentType: hostile, prefix: Array("<html>".utf8), bodyBytes: 6) else {
            return XCTFail("a long type decides as a short one")
        }
        XCTAssertLessThan(long[0].count, 200, "a 50 KB Content-Type is not echoed whole")
        XCTAssertLessThan(reason.count, 300, reason)
        XCTAssertEqual(ContentTypeRules.decide(contentType: "image/x-adobe-dng", prefix: [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0], bodyBytes: 10),
                       .accept(.dng, warnings: []), "a declared raw type refines a TIFF sniff")
        if case .accept = ContentTypeRules.decide(contentType: "text/html", prefix: Array("<html>".utf8), bodyBytes: 6) { XCTFail("HTML accepted") }
        if case .accept = ContentTypeRules.decide(contentType: "image/jpeg", prefix: [], bodyBytes: 0) { XCTFail("empty accepted") }
        // Fuzz finding: U+0600 (a prepended mark) fuses with ";" into one Character.
        XCTAssertEqual(ContentTypeRules.mediaType("\u{0600};\u{FFFD} "), "\u{0600}")
        XCTAssertEqual(ContentTypeRules.mediaType("image/jpeg\u{0600};x=1"), "image/jpeg\u{0600}")
        XCTAssertEqual(ContentTypeRules.format(forContentType: "image/heic"), .heic)
        XCTAssertEqual(ContentTypeRules.format(forContentType: "image/tiff")?.fileExtension, "tif")
        XCTAssertEqual(ContentTypeRules.format(forContentType: "image/jpeg")?.fileExtension, "jpg")
    }

    /// Names kept U+FEFF, U+2060, U+2028 and U+00AD: format characters (Cf, the bidi controls
    /// among them) are dropped, line and paragraph separators become "_" like other line breaks.
    func testNamesLoseInvisibleAndBidiCharactersAndLineSeparators() {
        let invisible: [(String, Unicode.Scalar)] = [
            ("byte order mark", "\u{FEFF}"), ("word joiner", "\u{2060}"), ("soft hyphen", "\u{AD}"),
            ("zero-width space", "\u{200B}"), ("zero-width joiner", "\u{200D}"), ("left-to-right mark", "\u{200E}"),
            ("right-to-left override", "\u{202E}"), ("left-to-right embedding", "\u{202A}"), ("pop directional", "\u{202C}"),
            ("first strong isolate", "\u{2068}"), ("pop isolate", "\u{2069}"), ("Arabic letter mark", "\u{61C}"),
            ("interlinear annotation", "\u{FFF9}"), ("tag letter", "\u{E0041}"), ("Arabic number sign", "\u{600}"),
        ]
        for (name, scalar) in invisible {
            XCTAssertEqual(FileNameSanitizer.sanitize("IMG\(scalar)_0001"), "IMG_0001", name)
            XCTAssertEqual(FileNameSanitizer.sanitize("\(scalar)IMG"), "IMG", "\(name) at the start")
            XCTAssertEqual(FileNameSanitizer.sanitize("IMG\(scalar)"), "IMG", "\(name) at the end")
            XCTAssertNil(FileNameSanitizer.sanitize(String(Character(scalar))), "\(name) alone is no name")
        }
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/%EF%BB%BFTus%C2%ADcany%E2%81%A0.jpg"), "Tuscany")
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/photo%E2%80%AEgpj.exe"), "photogpj", "an RTL override is gone")
        XCTAssertEqual(FileNameSanitizer.sanitize("a\u{2028}b\u{2029}c"), "a_b_c", "line and paragraph separators")
        XCTAssertEqual(FileNameSanitizer.sanitize("e\u{FEFF}\u{301}").map { Array($0.utf8) }, Array("\u{E9}".utf8), "NFC after dropping")
        XCTAssertEqual(FileNameSanitizer.sanitize("a.\u{200B}.b"), "a.b", "no .. once the invisible character is gone")
        XCTAssertEqual(FileNameSanitizer.sanitize("\u{FEFF}.hidden"), "hidden", "no hidden name behind a byte order mark")
        XCTAssertEqual(FileNameSanitizer.sanitize("\u{200B}con"), "con_", "a device name behind an invisible character")
    }

    func testFileNameSanitizer() {
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/a/b/IMG_0001.JPG"), "IMG_0001")
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/photos/My%20Holiday%20%C3%A9t%C3%A9.jpeg"), "My Holiday été")
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/..%2F..%2Fetc%2Fpasswd"), "_._etc_passwd", "no name holds ..")
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/a...b%2E%2E.c.jpg"), "a.b.c")
        XCTAssertNil(FileNameSanitizer.stem(fromURLPath: "/%2E%2E"))
        XCTAssertNil(FileNameSanitizer.stem(fromURLPath: "/"))
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/a%00b%0Ac%1Bd"), "a_b_c_d")
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/.hidden.jpg"), "hidden")
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/con:fig*?.png"), "con_fig__")
        let long = FileNameSanitizer.stem(fromURLPath: "/" + String(repeating: "%C3%A9", count: 80) + ".jpg")!
        XCTAssertLessThanOrEqual(long.utf8.count, 100)
        XCTAssertEqual(long.utf8.count, 100, "cut on a character boundary")
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/bad%FFutf8"), "bad_utf8")
        // Swift's == ignores the normalization form; the file system does not.
        XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: "/cafe%CC%81.jpg").map { Array($0.utf8) }, Array("caf\u{E9}".utf8))
        XCTAssertEqual(FileNameSanitizer.sanitize("A\u{30A}ngstro\u{308}m").map { Array($0.utf8) }, Array("\u{C5}ngstr\u{F6}m".utf8))
        let decomposedLong = FileNameSanitizer.stem(fromURLPath: "/" + String(repeating: "e%CC%81", count: 80))!
        XCTAssertEqual(Array(decomposedLong.utf8), Array(String(repeating: "\u{E9}", count: 50).utf8),
                       "composed before cutting to 100 bytes: 50 letters, not 33")
        // A % without two hex digits after it is kept, and nothing after it is lost.
        XCTAssertEqual(FileNameSanitizer.percentDecoded("a%4"), "a%4")
        XCTAssertEqual(FileNameSanitizer.percentDecoded("100%"), "100%")
        XCTAssertEqual(FileNameSanitizer.percentDecoded("%%41%zz%4a"), "%A%zzJ")
    }

    func testHeaderOptionsAreOneHeaderWithATokenName() {
        for good in ["X-Token: abc", "Referer: http://127.0.0.1/", "X-Empty;", "X-Remove:", "A:b\tc"] {
            XCTAssertTrue(FetchOptions.isHeader(good), good)
        }
        for bad in ["no colon here", "Bad Name: v", "X-A;b c: d", "X-Empty; trailing", ": v", ";", "X: a\r\nY: b", "X: \u{7F}"] {
            XCTAssertFalse(FetchOptions.isHeader(bad), bad)
        }
    }

    /// Foundation's deletingLastPathComponent trapped (SIGILL) on these: fetch -L 'a/~/b' crashed.
    func testContainingFolderOfPathsWithATilde() throws {
        XCTAssertEqual(FolderPath.containing("~"), ".")
        XCTAssertEqual(FolderPath.containing("~/x"), "~")
        XCTAssertEqual(FolderPath.containing("a/~/b"), "a/~")
        XCTAssertEqual(FolderPath.containing("a/~"), "a")
        XCTAssertEqual(FolderPath.containing("~a"), ".")
        XCTAssertEqual(FolderPath.containing("/x"), "/")
        XCTAssertEqual(FolderPath.containing("/"), "/")
        XCTAssertEqual(FolderPath.containing("a//b/"), "a")
        XCTAssertEqual(FolderPath.containing("/r/é/f.jpg"), "/r/é")
        let root = NSTemporaryDirectory() + "folders-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        XCTAssertNil(FolderPath.create(root + "/a/~/b/~"))
        var isFolder: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/a/~/b/~", isDirectory: &isFolder) && isFolder.boolValue)
    }

    func testFolderCreationNamesWhatIsInTheWay() throws {
        let root = NSTemporaryDirectory() + "folders-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        XCTAssertNil(FolderPath.create(root + "/a/b/c"))
        XCTAssertNil(FolderPath.create(root + "/a/b/c"), "an existing folder is fine")
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/file", contents: Data()))
        XCTAssertEqual(FolderPath.create(root + "/file/sub"), ENOTDIR)
        try FileManager.default.createSymbolicLink(atPath: root + "/dangling", withDestinationPath: root + "/nowhere")
        XCTAssertEqual(FolderPath.create(root + "/dangling"), ENOTDIR, "a dangling link is no folder")
    }

    func testWindowsDeviceNamesGetASuffix() {
        for (path, stem) in [("/CON.jpg", "CON_"), ("/nul.jpg", "nul_"), ("/com1.png", "com1_"), ("/Lpt9.gif", "Lpt9_"),
                             ("/aux.tar.jpg", "aux_.tar"), ("/COM%C2%B9.jpg", "COM\u{B9}_"), ("/conin$.jpg", "conin$_"), ("/CONOUT$.png", "CONOUT$_"), ("/CONSOLE.jpg", "CONSOLE"), ("/COM10.jpg", "COM10"), ("/xcon.jpg", "xcon")] {
            XCTAssertEqual(FileNameSanitizer.stem(fromURLPath: path), stem, path)
        }
        let long = FileNameSanitizer.stem(fromURLPath: "/nul." + String(repeating: "a", count: 200) + ".jpg")!
        XCTAssertEqual(long.utf8.count, FileNameSanitizer.maxBytes)
        XCTAssertTrue(long.hasPrefix("nul_.aaa"), long)
    }

    func testOptionsTheEngineCannotRunWithAreRefused() throws {
        XCTAssertNoThrow(try FetchOptions().validate())
        var options = FetchOptions()
        options.jobs = 0  // would spin without ever starting a transfer
        XCTAssertThrowsError(try options.validate()) { XCTAssertTrue("\($0)".contains("jobs 0"), "\($0)") }
        options = FetchOptions()
        options.connectTimeout = .nan  // would trap converting to milliseconds
        XCTAssertThrowsError(try options.validate())
        options = FetchOptions()
        options.headers = ["X-Evil: a\r\nHost: elsewhere"]
        XCTAssertThrowsError(try options.validate())
        options = FetchOptions()
        options.resolve = ["host:99999:127.0.0.1"]
        XCTAssertThrowsError(try options.validate())
    }

    func testRetryPolicy() {
        let policy = RetryPolicy(maxRetries: 3, baseDelay: 1, maxWait: 120)
        XCTAssertTrue(policy.allowsRetry(after: 3))
        XCTAssertFalse(policy.allowsRetry(after: 4))
        XCTAssertEqual(policy.delay(after: 1, retryAfter: nil, random: 0), 0.5)
        XCTAssertEqual(policy.delay(after: 1, retryAfter: nil, random: 1), 1)
        XCTAssertEqual(policy.delay(after: 3, retryAfter: nil, random: 1), 4)
        XCTAssertEqual(policy.delay(after: 1, retryAfter: 7, random: 0), 7)
        XCTAssertEqual(policy.delay(after: 1, retryAfter: 500, random: 0), 120, "Retry-After is capped")
        XCTAssertEqual(RetryPolicy(maxRetries: 30, baseDelay: 1, maxWait: 10).delay(after: 30, retryAfter: nil, random: 1), 10)

        XCTAssertEqual(ResponseInfo.retryAfterSeconds("120"), 120)
        XCTAssertEqual(ResponseInfo.retryAfterSeconds(" 7 "), 7)
        for huge in ["18446744073709551616", "9223372036854775808", String(repeating: "9", count: 400)] {
            let seconds = ResponseInfo.retryAfterSeconds(huge)
            XCTAssertGreaterThan(seconds ?? 0, 9e18, huge)
            XCTAssertEqual(policy.delay(after: 1, retryAfter: seconds, random: 0), 120, "\(huge) waits the longest, not at all")
        }
        for unreadable in ["", "soon", "-5", "1e3", "0x10", "nan", "inf"] {
            XCTAssertNil(ResponseInfo.retryAfterSeconds(unreadable), unreadable)
        }
        let date = 1_445_412_480  // Wed, 21 Oct 2015 07:28:00 GMT
        XCTAssertEqual(ResponseInfo.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", now: date - 30), 30)
        XCTAssertEqual(ResponseInfo.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", now: date + 30), 0, "a date past means now")
    }

    func testByteSize() {
        XCTAssertEqual(ByteSize.parse("200M"), 200 * 1024 * 1024)
        XCTAssertEqual(ByteSize.parse("1.5G"), Int64(1.5 * 1024 * 1024 * 1024))
        XCTAssertEqual(ByteSize.parse("512k"), 512 * 1024)
        XCTAssertEqual(ByteSize.parse("10MB"), 10 * 1024 * 1024)
        XCTAssertEqual(ByteSize.parse("1000"), 1000)
        XCTAssertNil(ByteSize.parse("lots"))
        XCTAssertNil(ByteSize.parse("-5M"))
        XCTAssertEqual(ByteSize.parse("1KiB"), 1024)
        XCTAssertEqual(ByteSize.parse(".5K"), 512)
        for notDecimal in ["0x10", "0x1p4", "1e3", "inf", "nan", ".", "1.2.3", "", "K", "+5M"] {
            XCTAssertNil(ByteSize.parse(notDecimal), notDecimal)
        }
        XCTAssertEqual(ByteSize.format(1536), "1.5 KiB")
    }

    func testURLListParsing() throws {
        XCTAssertNil(URLListReader.parse("   ", origin: "f:1"))
        XCTAssertNil(URLListReader.parse("# comment", origin: "f:1"))
        XCTAssertEqual(URLListReader.parse("  https://example.org/a.jpg \r", origin: "f:2"),
                       .url(FetchItem(url: "https://example.org/a.jpg", origin: "f:2")))
        for bad in ["example.org/a.jpg", "ftp://example.org/a", "file:///etc/passwd", "http://", "https://exa mple.org/"] {
            guard case .invalid(let origin, _, _)? = URLListReader.parse(bad, origin: "f:3") else {
                return XCTFail("accepted \(bad)")
            }
            XCTAssertEqual(origin, "f:3")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("list-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("l.txt")
        try "# c\nhttp://a.test/1\n\nnope\nhttp://a.test/2".write(to: file, atomically: true, encoding: .utf8)
        let reader = URLListReader(paths: [file.path])
        var entries: [URLListReader.Entry] = []
        while let entry = try reader.next() { entries.append(entry) }
        XCTAssertEqual(entries.count, 3)
        XCTAssertEqual(entries[0], .url(FetchItem(url: "http://a.test/1", origin: "\(file.path):2")))
        if case .invalid(let origin, _, _) = entries[1] { XCTAssertEqual(origin, "\(file.path):4") } else { XCTFail() }
        XCTAssertEqual(entries[2], .url(FetchItem(url: "http://a.test/2", origin: "\(file.path):5")), "last line without newline")
        XCTAssertEqual(ListCounter.countURLLines(file.path), 3)
        XCTAssertThrowsError(try URLListReader.checkReadable([directory.appendingPathComponent("missing").path]))

        // Saved by a Windows editor: byte order mark and CRLF. Only the file's first line may carry the mark.
        let windows = directory.appendingPathComponent("windows.txt")
        try Data([0xEF, 0xBB, 0xBF] + Array("http://a.test/1\r\n\u{FEFF}http://a.test/2\r\n".utf8)).write(to: windows)
        let windowsReader = URLListReader(paths: [windows.path])
        XCTAssertEqual(try windowsReader.next(), .url(FetchItem(url: "http://a.test/1", origin: "\(windows.path):1")))
        guard case .invalid(let origin, _, _)? = try windowsReader.next() else { return XCTFail("a mark inside the list is kept") }
        XCTAssertEqual(origin, "\(windows.path):2")
        let commentFirst = directory.appendingPathComponent("comment-first.txt")
        try Data([0xEF, 0xBB, 0xBF] + Array("# photos\r\nhttp://a.test/1\r\n".utf8)).write(to: commentFirst)
        XCTAssertEqual(ListCounter.countURLLines(commentFirst.path), 1, "the progress total counts the comment after the mark")
    }

    /// The progress total counts what the reader gives: a line of Unicode white space is
    /// blank, and a comment after a form feed or a no-break space is a comment.
    func testTheLineCountAgreesWithTheReaderOnUnicodeWhiteSpace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("count-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("l.txt")
        let lines = ["http://a.test/1", "\u{A0}", "\u{0C}", "\u{3000}\u{2003}", "\u{0B}# c", "\u{A0}# c", "\u{85}",
                     "\u{A0}http://a.test/2", "é", "\u{A0}é", "#", "http://a.test/3\r"]
        try (lines.joined(separator: "\n")).write(to: file, atomically: true, encoding: .utf8)
        let reader = URLListReader(paths: [file.path])
        var entries = 0
        while try reader.next() != nil { entries += 1 }
        XCTAssertEqual(entries, 5, "3 URLs, 'é' twice invalid")
        XCTAssertEqual(ListCounter.countURLLines(file.path), entries)
    }

    /// A list longer than one read (64 KiB): lines, their leading white space and their
    /// multi-byte characters fall across the reads' boundaries at every offset.
    func testTheLineCountAgreesWithTheReaderAcrossReads() throws {
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("long.txt")
        let kinds = ["http://a.test/", "\u{A0}\u{A0}# c", "\u{3000}", "  http://b.test/", "\u{A0}é", "#x", ""]
        var text = "\u{FEFF}"
        for index in 0..<20_000 {
            text += String(repeating: " ", count: index % 7) + kinds[index % kinds.count] + (index % 3 == 0 ? "\(index)" : "") + "\n"
        }
        try text.write(to: file, atomically: true, encoding: .utf8)
        XCTAssertGreaterThan(text.utf8.count, 3 * LineReader.chunkSize)
        let reader = URLListReader(paths: [file.path])
        var entries = 0
        while try reader.next() != nil { entries += 1 }
        XCTAssertEqual(ListCounter.countURLLines(file.path), entries)
    }

    func testPathPlanning() throws {
        var metadata = PhotoMetadata()
        metadata.dateTimeOriginal = "2019:12:31 23:59:59"
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: nil).folder, "2019/12/31")
        metadata.dateTimeOriginal = "0000:00:00 00:00:00"
        metadata.createDate = "2018:01:02 03:04:05"
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: nil).folder, "2018/01/02", "invalid DateTimeOriginal falls back")
        XCTAssertEqual(CaptureDate.forDownload(metadata: nil, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT").folder, "2015/10/21")
        XCTAssertEqual(CaptureDate.forDownload(metadata: nil, lastModified: nil, downloadedAt: 0).folder, "1970/01/01")

        // Days not on the calendar fall back; other ways of writing a date are read, and recorded in EXIF's form.
        for (written, canonical) in [("2021:02:30 00:00:00", nil), ("2021:04:31 10:00:00", nil), ("2021:13:01 10:00:00", nil),
                                     ("2023:02:29 10:00:00", nil), ("2024:02:29 10:00:00", "2024:02:29 10:00:00"),
                                     ("1900:02:29 10:00:00", nil), ("2000:02:29 10:00:00", "2000:02:29 10:00:00"),
                                     ("2021-05-06T07:08:09", "2021:05:06 07:08:09"), ("2021:05:06", "2021:05:06 00:00:00"),
                                     ("2021:05:06 07:08:09.123+02:00", "2021:05:06 07:08:09"),
                                     ("2021:05:06 25:61:00", "2021:05:06 00:00:00"), ("    :  :     :  :  ", nil)] {
            XCTAssertEqual(CaptureDate.canonical(written), canonical, written)
        }
        metadata = PhotoMetadata()
        metadata.dateTimeOriginal = "2021-05-06T07:08:09"
        let iso = CaptureDate.forDownload(metadata: metadata, lastModified: nil)
        XCTAssertEqual(iso.folder, "2021/05/06")
        XCTAssertEqual(iso.takenAt, "2021:05:06 07:08:09")
        metadata.dateTimeOriginal = "2021:02:30 00:00:00"
        XCTAssertEqual(CaptureDate.forDownload(metadata: metadata, lastModified: nil, downloadedAt: 0).source, .fetchTime)

        // Last-Modified: no future date, no year that libcurl would read as two digits.
        let now: time_t = 1_730_000_000  // 2024-10-27
        for (header, folder) in [("Wed, 21 Oct 2015 07:28:00 GMT", "2015/10/21"), ("Sat, 01 Jan 0050 00:00:00 GMT", "2024/10/27"),
                                 ("Fri, 01 Jan 0099 00:00:00 GMT", "2024/10/27"), ("Fri, 01 Jan 2100 00:00:00 GMT", "2024/10/27"),
                                 ("Thursday, 21-Oct-15 07:28:00 GMT", "2015/10/21"), ("Wed Oct 21 07:28:00 2015", "2015/10/21"),
                                 ("Wed Oct  1 07:28:00 2015", "2015/10/01"), ("Mon, 30 Feb 2021 00:00:00 GMT", "2024/10/27"),
                                 ("Thu, 31 Apr 2021 00:00:00 GMT", "2024/10/27"), ("Mon, 29 Feb 2016 10:00:00 GMT", "2016/02/29"),
                                 ("Mon, 01 Jan 2024 10:00:00 -0500", "2024/01/01"), ("Sun, 31 Mar 2024 23:00:00 -0500", "2024/04/01"),
                                 ("Mon, 01 Jan 2024 01:00:00 +0200", "2023/12/31"), ("Sunday, 31-Mar-24 23:00:00 GMT", "2024/03/31")] {
            XCTAssertEqual(CaptureDate.forDownload(metadata: nil, lastModified: header, downloadedAt: now).folder, folder, header)
        }
        XCTAssertEqual(LibraryPathPlanner.stem(url: "http://a.test/", sha256: "abcdef0123456789"), "abcdef012345")
        XCTAssertEqual((1...3).map { LibraryPathPlanner.candidate(folder: "2020/01/01", stem: "a", fileExtension: "jpg", choice: $0) },
                       ["originals/2020/01/01/a.jpg", "originals/2020/01/01/a-2.jpg", "originals/2020/01/01/a-3.jpg"])
    }

    func testURLIdentityIgnoresSpellingOnly() throws {
        func identity(_ url: String) throws -> String { try URLValidator.validated(url).identity }
        XCTAssertEqual(try identity("HTTP://Example.COM:80/a/./b/../c.jpg?q=1#frag"), "http://example.com/a/c.jpg?q=1")
        XCTAssertEqual(try identity("https://example.com:443/x"), "https://example.com/x")
        XCTAssertEqual(try identity("https://example.com:8443/x"), "https://example.com:8443/x")
        XCTAssertNotEqual(try identity("http://example.com/X.jpg"), try identity("http://example.com/x.jpg"), "paths keep their case")
        XCTAssertNotEqual(try identity("http://example.com/x?a=1"), try identity("http://example.com/x?a=2"))
    }

    func testRecordedURLHasNoPassword() throws {
        func recorded(_ url: String) throws -> String { try URLValidator.validated(url).recorded }
        XCTAssertEqual(try recorded("http://alice:s3cret@example.com/a.jpg?q=1"), "http://alice@example.com/a.jpg?q=1")
        XCTAssertEqual(try recorded("https://alice:@example.com/a.jpg"), "https://alice@example.com/a.jpg", "an empty password")
        XCTAssertEqual(try recorded("http://:s3cret@example.com/a.jpg"), "http://example.com/a.jpg", "no user name left to keep")
        XCTAssertEqual(try recorded("http://%61lice:p%40ss@example.com:8080/a.jpg"), "http://%61lice@example.com:8080/a.jpg")
        // Without a password, the URL is kept as given, so earlier records still match.
        for unchanged in ["HTTP://Example.COM/a/./b.jpg#x", "http://alice@example.com/a.jpg", "http://example.com/@2x/a.jpg"] {
            XCTAssertEqual(try recorded(unchanged), unchanged)
        }
        XCTAssertNotEqual(try URLValidator.validated("http://alice:wrong@example.com/a.jpg").identity,
                          try URLValidator.validated("http://alice:right@example.com/a.jpg").identity,
                          "other credentials are another request, not a repeat")
        XCTAssertEqual(URLValidator.withoutPassword("ftp://carol:pw3@example.com/x.jpg"), "ftp://carol@example.com/x.jpg")
        // Text libcurl cannot parse loses its password by hand.
        XCTAssertEqual(URLValidator.withoutPassword("http://alice:s3cret@127.0.0.1:99999/a b.jpg"), "http://alice@127.0.0.1:99999/a b.jpg")
        XCTAssertEqual(URLValidator.withoutPassword("alice:s3cret@host/x"), "alice@host/x")
        XCTAssertEqual(URLValidator.withoutPassword("http://alice:s3:cr@et@/x?a@b"), "http://alice@b", "up to the last @: too much rather than too little")
        for separator in ["/", "?", "#"] {
            XCTAssertEqual(URLValidator.withoutPassword("http://alice:pa\(separator)ss@127.0.0.1:1/x.jpg"), "http://alice@127.0.0.1:1/x.jpg",
                           "a password holding \(separator)")
        }
        XCTAssertEqual(URLValidator.withoutPassword("#http://alice:s3cret@h/x"), "#http://alice@h/x")
        for unchanged in ["not a URL @ all", "/lists/me@2x.txt", "http://host/a:b@c"] {
            XCTAssertEqual(URLValidator.withoutPassword(unchanged), unchanged)
        }
        // The start of an over-long line may end inside the password.
        XCTAssertEqual(URLValidator.withoutPassword("http://alice:TOKEN_abcdef…", shortened: true), "http://alice…")
        XCTAssertEqual(URLValidator.withoutPassword("http://alice:p@ss…", shortened: true), "http://alice…", "an @ inside the password")
        XCTAssertEqual(URLValidator.withoutPassword("http://alice:pw@host/aaaa…", shortened: true), "http://alice…")
        XCTAssertEqual(URLValidator.withoutPassword("http://host/aaaa…", shortened: true), "http://host/aaaa…")
    }

    func testURLDeduplicator() {
        let seen = URLDeduplicator()
        XCTAssertTrue(seen.insert("http://a.test/1"))
        XCTAssertTrue(seen.insert("http://a.test/2"))
        XCTAssertFalse(seen.insert("http://a.test/1"))
    }

    func testURLDeduplicatorKeepsEveryURLAcrossItsMoveToDisk() {
        let seen = URLDeduplicator(memoryLimit: 1_000)
        let urls = (0..<5_000).map { "http://a.test/photo-\($0).jpg" }
        for (index, url) in urls.enumerated() {
            XCTAssertTrue(seen.insert(url), "first time: \(url)")
            if index % 7 == 0 { XCTAssertFalse(seen.insert(urls[index / 2]), "repeat of \(urls[index / 2])") }
        }
        XCTAssertTrue(seen.isOnDisk, "past 1,000 keys they live in the temporary database")
        for url in urls { XCTAssertFalse(seen.insert(url), "repeat: \(url)") }
        XCTAssertTrue(seen.insert("http://a.test/new"))
    }

    func testContentRangeThatCoversLessThanTheWholeFile() {
        XCTAssertEqual(TransferVerdict.partOfWhole(contentRange: "bytes 0-35/73", received: 36), "0-35 of 73")
        XCTAssertEqual(TransferVerdict.partOfWhole(contentRange: "bytes 10-72/73", received: 63), "10-72 of 73")
        XCTAssertEqual(TransferVerdict.partOfWhole(contentRange: "BYTES 5-9/*", received: 5), "5-9 of an unknown total")
        XCTAssertNil(TransferVerdict.partOfWhole(contentRange: "bytes 0-72/73", received: 73), "the whole file")
        XCTAssertNil(TransferVerdict.partOfWhole(contentRange: "bytes 0-73/73", received: 73), "off by one, yet every byte came")
        XCTAssertNil(TransferVerdict.partOfWhole(contentRange: "bytes 0-72/*", received: 73), "from the start, total unknown: cannot tell")
        XCTAssertNil(TransferVerdict.partOfWhole(contentRange: "bytes 0-18446744073709551615/5", received: 5), "no overflow")
        XCTAssertEqual(TransferVerdict.partOfWhole(contentRange: "bytes 0-1/18446744073709551615", received: 2), "0-1 of 18446744073709551615")
        for unreadable in ["", "bytes", "bytes */73", "items 0-1/2", "bytes 9-1/10", "bytes a-b/c", "bytes 0-1/2/3", "bytes 0-99999999999999999999/5"] {
            XCTAssertNil(TransferVerdict.partOfWhole(contentRange: unreadable, received: 1), unreadable)
        }
    }
}
