import Foundation
import ShoeboxTestSupport
import ShoeboxKit
import XCTest

/// `shoebox fetch` against the loopback fixture server: one test per rule of the spec.
final class FetchTests: XCTestCase {
    var server: FixtureServer!
    var runner: FetchRunner!

    override func setUpWithError() throws {
        server = try startFixtureServer()
        runner = try FetchRunner(self)
    }

    func testStoresOriginalByteForByteDatedByEXIFWithGPS() throws {
        let path = "/photo/IMG_0001.jpg?date=2021:05:06%2007:08:09&lat=-33.5&lon=151.25&alt=-12.5&make=Canon&model=EOS%20R5"
        let url = server.url(path)
        let output = try runner.fetch([url])
        XCTAssertEqual(output.status, 0, output.stderr)
        let record = try XCTUnwrap(output.record(url))
        XCTAssertEqual(record["outcome"] as? String, "stored")
        XCTAssertEqual(record["path"] as? String, "originals/2021/05/06/IMG_0001.jpg")
        XCTAssertEqual(record["extension"] as? String, "jpg")
        XCTAssertEqual(record["http_status"] as? Int, 200)
        XCTAssertEqual(record["attempts"] as? Int, 1)
        let expected = try server.get(path)
        let stored = try runner.contents(of: "originals/2021/05/06/IMG_0001.jpg")
        XCTAssertEqual(stored, expected, "original must be byte for byte what the server sent")
        let sha = SHA256Hasher()
        sha.update(expected)
        XCTAssertEqual(record["sha256"] as? String, sha.finalizeHex())
        XCTAssertEqual(record["bytes"] as? Int, expected.count)
        let metadata = try XCTUnwrap(record["metadata"] as? [String: Any])
        XCTAssertEqual(metadata["taken_at"] as? String, "2021:05:06 07:08:09")
        XCTAssertEqual(metadata["dated_by"] as? String, "exif")
        XCTAssertEqual(metadata["make"] as? String, "Canon")
        XCTAssertEqual(metadata["model"] as? String, "EOS R5")
        let gps = try XCTUnwrap(metadata["gps"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(gps["latitude"] as? Double), -33.5, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(gps["longitude"] as? Double), 151.25, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(gps["altitude"] as? Double), -12.5, accuracy: 0.01)
        let attributes = try FileManager.default.attributesOfItem(atPath: runner.library.appendingPathComponent("originals/2021/05/06/IMG_0001.jpg").path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o444)
        try runner.assertConsistent()
    }

    func testGPSPrintedAsInspectPrintsIt() throws {
        // 2° 17' 40.2" sums to 2.2944999999999998 in binary; inspect and exiftool -n print 2.2945.
        let url = server.url("/photo/gps?seed=gps&lat=48.8584&lon=2.2945&alt=35.25")
        let output = try runner.fetch([url])
        XCTAssertEqual(output.status, 0, output.stderr)
        // Foundation's parser would read either text as 2.2945: compare the printed text.
        XCTAssertTrue(output.stdout.contains(#""gps":{"altitude":35.25,"latitude":48.8584,"longitude":2.2945}"#), output.stdout)
    }

    func testAnOriginalThatCannotBeMovedIntoPlaceIsSaidOnStderrAndFinishedByTheNextRun() throws {
        // A file where the date folder should be: the original is recorded, then cannot be published.
        let blocker = runner.library.appendingPathComponent("originals/2020/01/02")
        try FileManager.default.createDirectory(at: blocker.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: blocker)
        let url = server.url("/photo/blocked.jpg?seed=blocked&date=2020:01:02%2003:04:05")
        let output = try runner.fetch([url])
        XCTAssertEqual(output.outcome(url), "stored")
        XCTAssertTrue(output.stderr.contains("warning \(url): recorded, but not yet at originals/2020/01/02/blocked.jpg"), output.stderr)
        XCTAssertEqual(output.status, 1, "an original not in place is not all good")
        try FileManager.default.removeItem(at: blocker)
        XCTAssertEqual(try runner.fetch([url]).outcome(url), "skipped")
        XCTAssertTrue(FileManager.default.fileExists(atPath: blocker.appendingPathComponent("blocked.jpg").path), "moved into place")
        try runner.assertConsistent()
    }

    func testDateFallsBackToLastModifiedThenDownloadTime() throws {
        let withLastModified = server.url("/photo/old?seed=lm&lm=Tue,%2003%20Mar%202015%2010:00:00%20GMT")
        let undated = server.url("/photo/new?seed=now")
        let output = try runner.fetch([withLastModified, undated])
        XCTAssertEqual(output.record(withLastModified)?["path"] as? String, "originals/2015/03/03/old.jpg")
        let today = Timestamp.exif(time(nil)).prefix(10).replacingOccurrences(of: ":", with: "/")
        XCTAssertEqual(output.record(undated)?["path"] as? String, "originals/\(today)/new.jpg")
        func datedBy(_ url: String) -> String? { (output.record(url)?["metadata"] as? [String: Any])?["dated_by"] as? String }
        XCTAssertEqual(datedBy(withLastModified), "last-modified")
        XCTAssertEqual(datedBy(undated), "fetch-time")
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        XCTAssertEqual(try catalog.allOriginals().map(\.datedBy), [.lastModified, .fetchTime])
    }

    /// A photo whose only capture time is in its XMP packet is dated by it (before the server's
    /// Last-Modified), and says so; EXIF's time wins when there is one.
    func testDateFromXMPWhenTheEXIFHasNone() throws {
        let xmpOnly = server.url("/photo/xmp.jpg?seed=x1&xmpdate=2019-05-01T10:20:30%2B02:00&lm=Tue,%2003%20Mar%202015%2010:00:00%20GMT")
        let both = server.url("/photo/both.jpg?seed=x2&date=2021:05:06%2007:08:09&xmpdate=2019-05-01T10:20:30")
        let output = try runner.fetch([xmpOnly, both])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.record(xmpOnly)?["path"] as? String, "originals/2019/05/01/xmp.jpg")
        XCTAssertEqual(output.record(both)?["path"] as? String, "originals/2021/05/06/both.jpg")
        func metadata(_ url: String) -> [String: Any]? { output.record(url)?["metadata"] as? [String: Any] }
        XCTAssertEqual(metadata(xmpOnly)?["dated_by"] as? String, "xmp")
        XCTAssertEqual(metadata(both)?["dated_by"] as? String, "exif")
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        let xmpRecord = try XCTUnwrap(try catalog.original(path: "originals/2019/05/01/xmp.jpg"))
        XCTAssertEqual(xmpRecord.datedBy, .xmp)
        XCTAssertEqual(xmpRecord.takenAt, "2019:05:01 10:20:30", "the local time the packet names")
        try runner.assertConsistent()
    }

    func testAnOriginalsFileTimeIsLastModifiedElseItsCaptureTimeElseTheDownloadTime() throws {
        // A photo dated by EXIF but served with an older Last-Modified: the header wins (as curl -R).
        let served = server.url("/photo/served.jpg?seed=t1&date=2021:05:06%2007:08:09&lm=Tue,%2003%20Mar%202015%2010:00:00%20GMT")
        let captured = server.url("/photo/captured.jpg?seed=t2&date=2021:05:06%2007:08:09")
        let undated = server.url("/photo/undated.jpg?seed=t3")
        let before = time(nil)
        let output = try runner.fetch([served, captured, undated])
        XCTAssertEqual(output.status, 0, output.stderr)
        func modified(_ url: String) throws -> time_t {
            var info = stat()
            XCTAssertEqual(stat(runner.library.appendingPathComponent(try XCTUnwrap(output.record(url)?["path"] as? String)).path, &info), 0)
            return info.st_mtim.tv_sec
        }
        XCTAssertEqual(try modified(served), 1_425_376_800)  // 2015-03-03 10:00:00 UTC
        XCTAssertEqual(try modified(captured), 1_620_284_889)  // 2021-05-06 07:08:09, read as UTC (no OffsetTimeOriginal)
        XCTAssertGreaterThanOrEqual(try modified(undated), before)
    }

    func testListShowsEveryVersionOfAURLWithItsSources() throws {
        let moving = server.url("/versioned/list-moving?change=1")
        XCTAssertEqual(try runner.fetch([moving]).status, 0)
        XCTAssertEqual(try runner.fetch([moving], ["--refresh"]).status, 0)
        let listed = try ShoeboxProcess.run(["list", "--library", runner.library.path, "--url-prefix", moving, "--sources", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let lines = FetchRunner.parseLines(listed.stdout)
        XCTAssertEqual(lines.count, 2, "both versions of the URL: \(listed.stdout)")
        for line in lines {
            let sources = line["sources"] as? [[String: Any]] ?? []
            XCTAssertEqual(sources.compactMap { $0["url"] as? String }, [moving], "\(line)")
            XCTAssertNotNil(sources.first?["first_fetched_at"] as? String)
        }
        let table = try ShoeboxProcess.run(["list", "--library", runner.library.path, "--url-prefix", moving, "--sources"])
        XCTAssertEqual(table.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("    " + moving) }.count, 2, table.stdout)
    }

    func testContentTypeAndSniffingRules() throws {
        let urls = [
            "declaredPNG": server.url("/photo/a?seed=a&ct=image/png"),
            "missing": server.url("/photo/b?seed=b&ct=none"),
            "generic": server.url("/photo/c?seed=c&ct=application/octet-stream"),
            "params": server.url("/photo/d?seed=d&ct=Image/JPEG;%20charset=binary"),
            "png": server.url("/png/e.png"),
            "html": server.url("/html"),
            "empty": server.url("/empty"),
            "text": server.url("/text"),
        ]
        let output = try runner.fetch(Array(urls.values))
        XCTAssertEqual(output.status, 1, "rejections make the exit status 1")
        func check(_ key: String, _ outcome: String, _ ext: String?, warning: Bool) {
            let record = output.record(urls[key]!)
            XCTAssertEqual(record?["outcome"] as? String, outcome, key)
            if let ext { XCTAssertEqual(record?["extension"] as? String, ext, key) }
            let warnings = record?["warnings"] as? [String] ?? []
            XCTAssertEqual(warnings.contains { $0.hasPrefix("content-type-mismatch") }, warning, "\(key): \(warnings)")
        }
        check("declaredPNG", "stored", "jpg", warning: true)
        check("missing", "stored", "jpg", warning: false)
        check("generic", "stored", "jpg", warning: false)
        check("params", "stored", "jpg", warning: false)
        check("png", "stored", "png", warning: false)
        check("html", "rejected", nil, warning: false)
        check("empty", "rejected", nil, warning: false)
        check("text", "rejected", nil, warning: false)
        XCTAssertTrue((output.record(urls["html"]!)?["reason"] as? String ?? "").contains("not an image"))
        try runner.assertConsistent()
    }

    func testClientErrorsAreNotRetriedServerErrorsAre() throws {
        let forbidden = server.url("/status/403"), missing = server.url("/status/404"), broken = server.url("/status/500")
        let output = try runner.fetch([forbidden, missing, broken], ["--retries", "1"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.record(forbidden)?["attempts"] as? Int, 1)
        XCTAssertEqual(output.record(missing)?["attempts"] as? Int, 1)
        XCTAssertEqual(output.record(missing)?["reason"] as? String, "HTTP 404 Not Found")
        XCTAssertEqual(output.record(broken)?["attempts"] as? Int, 2)
        XCTAssertEqual(try server.requestTimes("status/404").count, 1)
        XCTAssertEqual(try server.requestTimes("status/500").count, 2)

        // The status decides even when its page breaks off before its Content-Length.
        let cut404 = server.url("/cut-error-page/n?status=404"), cut503 = server.url("/cut-error-page/u?status=503")
        let cut = try runner.fetch([cut404, cut503], ["--retries", "1"])
        XCTAssertEqual(cut.record(cut404)?["reason"] as? String, "HTTP 404 Not Found")
        XCTAssertEqual(try server.requestTimes("cut-error/n").count, 1, "a 404 is never retried")
        XCTAssertEqual(cut.record(cut503)?["reason"] as? String, "HTTP 503 Service Unavailable")
        XCTAssertEqual(try server.requestTimes("cut-error/u").count, 2)
        XCTAssertTrue(output.stderr.contains(missing), "failures are named on stderr")
    }

    func testRetryAfterIsHonoured() throws {
        let unavailable = server.url("/flaky/u?status=503&times=1&retry_after=2")
        let tooMany = server.url("/flaky/t?status=429&times=1&retry_after=1")
        let output = try runner.fetch([unavailable, tooMany])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(unavailable), "stored")
        XCTAssertEqual(output.record(unavailable)?["attempts"] as? Int, 2)
        XCTAssertEqual(output.record(tooMany)?["attempts"] as? Int, 2)
        XCTAssertEqual(try server.requestTimes("flaky/u").count, 2)
        let wait503 = try server.firstRetryDelay("flaky/u")
        XCTAssertGreaterThanOrEqual(wait503, 1.9, "Retry-After: 2 waits two seconds")
        XCTAssertLessThan(wait503, 4)
        XCTAssertGreaterThanOrEqual(try server.firstRetryDelay("flaky/t"), 0.9)
    }

    func testUnreadableRetryAfterFallsBackToBackoff() throws {
        // libcurl reads "soon" and "-5" as 0 seconds: retrying at once would hammer the server.
        let soon = server.url("/flaky/soon?status=503&times=1&retry_after=soon")
        let negative = server.url("/flaky/negative?status=503&times=1&retry_after=-5")
        let output = try runner.fetch([soon, negative])
        XCTAssertEqual(output.status, 0, output.stderr)
        for key in ["flaky/soon", "flaky/negative"] {
            XCTAssertEqual(try server.requestTimes(key).count, 2, key)
            XCTAssertGreaterThanOrEqual(try server.firstRetryDelay(key), 0.45, "\(key): backoff of at least half the 1 s base")
        }
    }

    func testPartialContentAndHeadersCutShortAreRetriedNeverStored() throws {
        let partial = server.url("/partial/p"), cut = server.url("/cut-headers/c?times=1")
        let output = try runner.fetch([partial, cut], ["--retries", "1"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(partial), "failed")
        XCTAssertTrue((output.record(partial)?["reason"] as? String ?? "").contains("206"), output.stderr)
        XCTAssertEqual(try server.requestTimes("partial/p").count, 2, "retried once")
        XCTAssertEqual(output.outcome(cut), "stored", "a connection closed inside the headers is retried")
        XCTAssertEqual(output.record(cut)?["attempts"] as? Int, 2)
        try runner.assertConsistent()
    }

    /// Before, a 200 whose Content-Range named half the file was stored as the photo, with exit 0.
    func testA200ThatSaysItIsPartOfTheFileIsRetriedNeverStored() throws {
        let part = server.url("/partial/half?status=200"), whole = server.url("/partial/whole?status=200&whole=1")
        let output = try runner.fetch([part, whole], ["--retries", "1"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.outcome(part), "failed")
        let reason = output.record(part)?["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("partial body: Content-Range says these are bytes 0-"), reason)
        XCTAssertEqual(try server.requestTimes("partial/half").count, 2, "retried once")
        XCTAssertEqual(output.outcome(whole), "stored", "a Content-Range covering the whole file is no reason to refuse it")
        try runner.assertConsistent()
    }

    func testASlowFirstTransferDoesNotHoldUpTheRestOfItsHost() throws {
        let slow = server.url("/trickle/first?seconds=3")
        let quick = (0..<4).map { server.url("/photo/quick\($0)?seed=quick\($0)") }
        let output = try runner.fetch([slow] + quick)
        XCTAssertEqual(output.status, 0, output.stderr)
        let order = output.records.compactMap { $0["url"] as? String }
        XCTAssertEqual(order.last, slow, "the quick ones finish while the slow one still trickles: \(order)")
    }

    func testRetryAfterIsCappedByMaxRetryWait() throws {
        let url = server.url("/flaky/cap?status=503&times=1&retry_after=30")
        // Past 2^64 seconds, libcurl's own reading is 0: the server that asks for the
        // longest wait would be retried at once.
        let huge = server.url("/flaky/huge?status=503&times=1&retry_after=18446744073709551616")
        let output = try runner.fetch([url, huge], ["--max-retry-wait", "1"])
        XCTAssertEqual(output.outcome(url), "stored")
        XCTAssertLessThan(try server.firstRetryDelay("flaky/cap"), 3)
        XCTAssertEqual(output.outcome(huge), "stored")
        XCTAssertGreaterThanOrEqual(try server.firstRetryDelay("flaky/huge"), 0.9, "waits the whole --max-retry-wait")
        XCTAssertLessThan(try server.firstRetryDelay("flaky/huge"), 3)
    }

    func testTruncatedBodyIsRetriedAndAlwaysTruncatedFails() throws {
        let once = server.url("/truncate-once/o"), always = server.url("/truncate-always/a")
        let output = try runner.fetch([once, always], ["--retries", "2"])
        XCTAssertEqual(output.outcome(once), "stored")
        XCTAssertEqual(output.record(once)?["attempts"] as? Int, 2)
        XCTAssertEqual(output.outcome(always), "failed")
        XCTAssertEqual(output.record(always)?["attempts"] as? Int, 3)
        XCTAssertTrue((output.record(always)?["reason"] as? String ?? "").contains("truncated"))
        try runner.assertConsistent()
    }

    func testMaxSizeIsForTheImageNotForErrorOrRedirectPages() throws {
        // Pages over --max-size with their Content-Length: libcurl's own limit refused them all.
        let retried = server.url("/flaky/ep?status=503&times=1&page=150000")
        let missing = server.url("/flaky/gone?status=404&times=1&page=150000")
        let redirected = server.url("/redirect-to/rb?to=%2Fphoto%2Frb-target%3Fseed%3Drb&page=150000")
        let hugeRedirect = server.url("/redirect-to/huge?to=%2Fphoto%2Fhuge-target%3Fseed%3Dhuge&page=8000000")
        let output = try runner.fetch([retried, missing, redirected, hugeRedirect], ["--max-size", "100K"])
        XCTAssertEqual(output.status, 1, "the 404 only")
        XCTAssertEqual(output.outcome(retried), "stored", output.stderr)
        XCTAssertEqual(output.record(retried)?["attempts"] as? Int, 2)
        XCTAssertEqual(output.outcome(missing), "failed")
        XCTAssertEqual(output.record(missing)?["reason"] as? String, "HTTP 404 Not Found")
        XCTAssertEqual(output.outcome(redirected), "stored", output.stderr)
        // An 8 MB page: no longer read to its end (libcurl would, before following); followed anyway.
        XCTAssertEqual(output.outcome(hugeRedirect), "stored", output.stderr)
        XCTAssertEqual(output.record(hugeRedirect)?["final_url"] as? String, server.url("/photo/huge-target?seed=huge"))
        XCTAssertEqual(output.record(hugeRedirect)?["attempts"] as? Int, 1)
        XCTAssertLessThan(try server.finalBytesSent("huge"), 4_000_000, "a redirect's long page is not read to its end")
        XCTAssertEqual(try server.requestTimes("huge-target").count, 1)
        try runner.assertConsistent()
    }

    func testABodyCutWhereNothingGivesItsLengthIsRetriedNeverStored() throws {
        // Without Content-Length or chunks, only the image's own structure tells a cut body.
        let whole = server.url("/close-delimited/whole?seed=whole")
        let once = server.url("/close-delimited/once?seed=once&cut=once")
        let always = server.url("/close-delimited/always?seed=always&cut=always")
        let tiny = server.url("/close-delimited/tiny?seed=tiny&cut=tiny")
        let conflicting = server.url("/conflicting-length/c?seed=c")
        let output = try runner.fetch([whole, once, always, tiny, conflicting], ["--retries", "1"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(whole), "stored", output.stderr)
        XCTAssertEqual(output.record(whole)?["attempts"] as? Int, 1)
        XCTAssertEqual(output.outcome(once), "stored", output.stderr)
        XCTAssertEqual(output.record(once)?["attempts"] as? Int, 2)
        for url in [always, tiny] {
            XCTAssertEqual(output.outcome(url), "failed", url)
            XCTAssertEqual(output.record(url)?["attempts"] as? Int, 2, url)
            let reason = output.record(url)?["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("connection closed before the end of the JPEG image"), reason)
        }
        XCTAssertEqual(output.outcome(conflicting), "failed")
        XCTAssertTrue((output.record(conflicting)?["reason"] as? String ?? "").contains("conflicting Content-Length"), output.stderr)
        XCTAssertEqual(try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
            .countOriginals(), 2, "nothing cut was stored")
        try runner.assertConsistent()
    }

    func testOversizeIsRefusedWithoutDownloadingItAll() throws {
        let declared = server.url("/big/declared?size=8000000&cl=1")
        let undeclared = server.url("/big/undeclared?size=8000000&cl=0")
        let output = try runner.fetch([declared, undeclared], ["--max-size", "1M"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(declared), "rejected", "refused, as the manual defines rejected")
        XCTAssertTrue((output.record(declared)?["reason"] as? String ?? "").contains("Content-Length exceeds --max-size"))
        XCTAssertEqual(output.outcome(undeclared), "rejected")
        XCTAssertTrue((output.record(undeclared)?["reason"] as? String ?? "").contains("exceeds --max-size"))
        XCTAssertEqual(output.record(undeclared)?["attempts"] as? Int, 1, "oversize is not retried")
        let overflowing = server.url("/huge-length/h?seed=h")
        // With chunked framing a Content-Length is ignored, whatever it says.
        let chunked = server.url("/chunked-with-length/k?seed=k"), chunkedHuge = server.url("/chunked-with-length/kh?seed=kh&cl=99999999999999999999999")
        let huge = try runner.fetch([overflowing, chunked, chunkedHuge], ["--max-size", "1M"])
        XCTAssertEqual(huge.outcome(overflowing), "rejected", "a length past 2^64 is over any limit: \(huge.stderr)")
        XCTAssertEqual(huge.outcome(chunked), "stored", huge.stderr)
        XCTAssertEqual(huge.outcome(chunkedHuge), "stored", huge.stderr)
        XCTAssertLessThan(try server.finalBytesSent("declared"), 4_000_000, "refused on Content-Length")
        XCTAssertLessThan(try server.finalBytesSent("undeclared"), 4_000_000, "aborted once past the limit")
        try runner.assertConsistent()
    }

    func testLargeBodyIsStoredWhole() throws {
        // Several MiB: past the first MiB the hash runs beside the transfer, and writeback starts early.
        let url = server.url("/big/large?size=9000000&cl=1")
        let output = try runner.fetch([url])
        XCTAssertEqual(output.outcome(url), "stored", output.stderr)
        XCTAssertEqual(output.record(url)?["bytes"] as? Int, 9_000_000)
        let path = try XCTUnwrap(output.record(url)?["path"] as? String)
        let expected = try server.get("/big/large-reference?size=9000000&cl=1")
        XCTAssertEqual(try runner.contents(of: path), expected)
        let hasher = SHA256Hasher()
        hasher.update(expected)
        XCTAssertEqual(output.record(url)?["sha256"] as? String, hasher.finalizeHex())
        try runner.assertConsistent()
    }

    func testStalledTransferIsAborted() throws {
        let url = server.url("/stall/s?for=20")
        let started = Date()
        let output = try runner.fetch([url], ["--stall-timeout", "1", "--retries", "1"])
        XCTAssertEqual(output.outcome(url), "failed")
        XCTAssertEqual(output.record(url)?["attempts"] as? Int, 2)
        XCTAssertTrue((output.record(url)?["reason"] as? String ?? "").contains("stalled"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 8)
        try runner.assertConsistent()
    }

    func testRedirects() throws {
        let ok = server.url("/redirect/3"), loop = server.url("/redirect-loop")
        let toFile = server.url("/redirect-to?to=file:///etc/passwd"), toFTP = server.url("/redirect-to?to=ftp://127.0.0.1/x.jpg")
        let output = try runner.fetch([ok, loop, toFile, toFTP])
        XCTAssertEqual(output.outcome(ok), "stored")
        XCTAssertEqual(output.record(ok)?["final_url"] as? String, server.url("/photo/redirected?seed=redirect"))
        XCTAssertEqual(output.outcome(loop), "failed")
        XCTAssertTrue((output.record(loop)?["reason"] as? String ?? "").contains("redirects"))
        XCTAssertEqual(output.outcome(toFile), "failed")
        XCTAssertEqual(output.outcome(toFTP), "failed")
        XCTAssertTrue((output.record(toFTP)?["reason"] as? String ?? "").contains("unsupported scheme"))
    }

    func testHostileNamesNeverEscapeTheLibrary() throws {
        let long = String(repeating: "%C3%A9", count: 80)
        let urls = [
            server.url("/photo/..%2F..%2F..%2Fescape.jpg?seed=1&cd=../../../escape2.jpg"),
            server.url("/photo/%2E%2E?seed=2"),
            server.url("/photo/a%00b%0Ac%1B.jpg?seed=3"),
            server.url("/photo/\(long).jpg?seed=4"),
            server.url("/photo/x?seed=5&cd=%2Fetc%2Fpasswd"),
        ]
        let output = try runner.fetch(urls)
        XCTAssertEqual(output.status, 0, output.stderr)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: runner.workDirectory.path).filter { !$0.hasPrefix("list-") }
        XCTAssertEqual(siblings, ["library"], "nothing written beside the library")
        for record in output.records {
            let path = try XCTUnwrap(record["path"] as? String)
            XCTAssertTrue(path.hasPrefix("originals/"), path)
            let name = (path as NSString).lastPathComponent
            XCTAssertFalse(path.split(separator: "/").contains { $0 == ".." || $0.hasPrefix(".") }, path)
            XCTAssertLessThanOrEqual(name.utf8.count, 100 + 4, name)
            XCTAssertFalse(name.unicodeScalars.contains { $0.value < 0x20 }, name)
            XCTAssertEqual(path.split(separator: "/").count, 5, "originals/YYYY/MM/DD/NAME: \(path)")
        }
        try runner.assertConsistent()
    }

    func testSameBytesUnderTwoURLsAreStoredOnce() throws {
        let first = server.url("/photo/one?seed=same"), second = server.url("/photo/two?seed=same")
        let output = try runner.fetch([first, second], ["--jobs", "1"])
        XCTAssertEqual(output.status, 0)
        let outcomes = [output.outcome(first), output.outcome(second)].compactMap { $0 }.sorted()
        XCTAssertEqual(outcomes, ["duplicate", "stored"])
        XCTAssertEqual(output.record(first)?["path"] as? String, output.record(second)?["path"] as? String)
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        XCTAssertEqual(try catalog.countOriginals(), 1)
        let sha = try XCTUnwrap(output.record(first)?["sha256"] as? String)
        XCTAssertEqual(try catalog.sources(sha256: sha).count, 2, "both URLs are recorded as sources")
    }

    func testDifferentContentUnderATakenNameGetsASuffix() throws {
        let first = server.url("/photo/IMG.jpg?seed=1&date=2020:01:02%2003:04:05")
        let second = server.url("/photo/IMG.jpg?seed=2&date=2020:01:02%2003:04:05")
        let third = server.url("/photo/IMG.jpg?seed=3&date=2020:01:02%2003:04:05")
        let output = try runner.fetch([first, second, third], ["--jobs", "1"])
        let paths = Set(output.records.compactMap { $0["path"] as? String })
        XCTAssertEqual(paths, ["originals/2020/01/02/IMG.jpg", "originals/2020/01/02/IMG-2.jpg", "originals/2020/01/02/IMG-3.jpg"])

        // Names that differ by case only would be one file on macOS or exFAT: they collide too,
        // within a batch and against the catalog (a second run).
        let lower = server.url("/photo/img.jpg?seed=4&date=2020:01:02%2003:04:05")
        let upper = server.url("/photo/Img.jpg?seed=5&date=2020:01:02%2003:04:05")
        let again = try runner.fetch([lower, upper], ["--jobs", "1"])
        let more = Set(again.records.compactMap { $0["path"] as? String })
        XCTAssertEqual(more, ["originals/2020/01/02/img-4.jpg", "originals/2020/01/02/Img-5.jpg"])
    }

    func testNamesThatDifferByTheCaseOfALetterOutsideASCIICollideAcrossRuns() throws {
        // "Été" and "été" are one name on macOS and exFAT; SQLite's NOCASE folds ASCII only.
        let capital = server.url("/photo/%C3%89t%C3%A9.jpg?seed=upper&date=2020:01:05%2003:04:05")
        let small = server.url("/photo/%C3%A9t%C3%A9.jpg?seed=lower&date=2020:01:05%2003:04:05")
        let first = try runner.fetch([capital])
        XCTAssertEqual(first.record(capital)?["path"] as? String, "originals/2020/01/05/\u{C9}t\u{E9}.jpg")
        let second = try runner.fetch([small])
        XCTAssertEqual(second.status, 0)
        XCTAssertEqual(second.record(small)?["path"] as? String, "originals/2020/01/05/\u{E9}t\u{E9}-2.jpg")
        try runner.assertConsistent()
    }

    func testNamesSentDecomposedAreStoredComposedAndCollideWithTheComposedName() throws {
        // "café" as a Mac uploads it (e + U+0301) and as typed elsewhere (U+00E9): one name
        // on macOS file systems, so one name here too.
        let decomposed = server.url("/photo/cafe%CC%81.jpg?seed=nfd&date=2020:01:03%2003:04:05")
        let composed = server.url("/photo/caf%C3%A9.jpg?seed=nfc&date=2020:01:03%2003:04:05")
        let output = try runner.fetch([decomposed, composed], ["--jobs", "1"])
        let paths = output.records.compactMap { $0["path"] as? String }.map { Array($0.utf8) }.sorted { $0.count < $1.count }
        XCTAssertEqual(paths, [Array("originals/2020/01/03/caf\u{E9}.jpg".utf8), Array("originals/2020/01/03/caf\u{E9}-2.jpg".utf8)],
                       "byte for byte NFC: \(output.records.compactMap { $0["path"] as? String }.map { Array($0.unicodeScalars) })")
        for path in paths {
            XCTAssertTrue(FileManager.default.fileExists(atPath: runner.library.path + "/" + String(decoding: path, as: UTF8.self)))
        }
    }

    func testBytesOfAnOriginalWhoseFileIsGonePutItBack() throws {
        let first = server.url("/photo/lost.jpg?seed=lost&date=2020:01:04%2003:04:05")
        let stored = try runner.fetch([first])
        let path = try XCTUnwrap(stored.record(first)?["path"] as? String)
        let file = runner.library.appendingPathComponent(path).path
        try FileManager.default.removeItem(atPath: file)

        // The same bytes under another URL, twice in one batch, and again through --refresh.
        let other = server.url("/photo/other.jpg?seed=lost&date=2020:01:04%2003:04:05")
        let third = server.url("/photo/third.jpg?seed=lost&date=2020:01:04%2003:04:05")
        let again = try runner.fetch([other, third], ["--jobs", "1"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.outcome(other), "duplicate")
        XCTAssertEqual(again.record(other)?["path"] as? String, path)
        let warnings = (again.records.flatMap { $0["warnings"] as? [String] ?? [] }).filter { $0.hasPrefix("restored:") }
        XCTAssertEqual(warnings.count, 1, "put back once: \(warnings)")
        XCTAssertTrue(again.stderr.contains("restored \(path): its file was missing"), "said on stderr too: \(again.stderr)")
        XCTAssertEqual(try SHA256Hasher.hashFile(atPath: file).sha256, stored.record(first)?["sha256"] as? String)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o444, "read-only like every original")
        try runner.assertConsistent()

        try FileManager.default.removeItem(atPath: file)
        let refreshed = try runner.fetch([first], ["--refresh"])
        XCTAssertEqual(refreshed.outcome(first), "unchanged")
        XCTAssertTrue(FileManager.default.fileExists(atPath: file), "--refresh put it back too")
        try runner.assertConsistent()

        // With an ETag, --refresh would get a 304 and no bytes: it asks for the whole file instead.
        let tagged = server.url("/photo/tagged.jpg?seed=tagged&etag=v1&date=2020:01:04%2003:04:05")
        let taggedPath = try XCTUnwrap(try runner.fetch([tagged]).record(tagged)?["path"] as? String)
        try FileManager.default.removeItem(atPath: runner.library.appendingPathComponent(taggedPath).path)
        let revalidated = try runner.fetch([tagged], ["--refresh"])
        XCTAssertEqual(revalidated.outcome(tagged), "unchanged", revalidated.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: runner.library.appendingPathComponent(taggedPath).path))
        try runner.assertConsistent()
    }

    func testURLListedTwiceIsFetchedOnce() throws {
        let url = server.url("/photo/twice?seed=twice")
        let output = try runner.fetch([url, url, "  \(url)  "])
        XCTAssertEqual(output.records.count, 1)
        XCTAssertEqual(try server.requestTimes("twice").count, 1)
        XCTAssertTrue(output.stderr.contains("2 repeated"), output.stderr)

        // Other spellings of one resource: a fragment (never sent), the scheme's and host's case,
        // a dot segment. Each was a download of its own (then a duplicate).
        let base = server.url("/photo/spelled?seed=spelled")
        let spellings = [base, base + "#1", base + "#2", "HTTP://" + base.dropFirst("http://".count),
                         base.replacingOccurrences(of: "/photo/", with: "/photo/./")]
        let spelled = try runner.fetch(spellings)
        XCTAssertEqual(spelled.records.count, 1, spelled.stderr)
        XCTAssertEqual(try server.requestTimes("spelled").count, 1)
        XCTAssertTrue(spelled.stderr.contains("4 repeated"), spelled.stderr)
    }

    func testUserAgentAndExtraHeaders() throws {
        let plain = server.url("/photo/ua?seed=ua"), custom = server.url("/photo/custom?seed=custom")
        XCTAssertEqual(try runner.fetch([plain]).outcome(plain), "stored")
        let output = try runner.fetch([custom], ["--user-agent", "archivist/2", "-H", "X-Token: abc", "--header", "Referer: http://127.0.0.1/"])
        XCTAssertEqual(output.outcome(custom), "stored")
        let defaults = try JSONDecoder().decode([String: String].self, from: server.get("/_headers/ua"))
        XCTAssertEqual(defaults["User-Agent"], "shoebox/\(Shoebox.version)")
        let headers = try JSONDecoder().decode([String: String].self, from: server.get("/_headers/custom"))
        XCTAssertEqual(headers["User-Agent"], "archivist/2")
        XCTAssertEqual(headers["X-Token"], "abc")
        XCTAssertEqual(headers["Referer"], "http://127.0.0.1/")
        let bad = try runner.fetch([plain], ["--header", "no colon here"])
        XCTAssertEqual(bad.status, 2)
        // A line break would smuggle in another header; a space makes no header name.
        for smuggling in [["--user-agent", "evil\r\nX-Injected: yes"], ["--user-agent", "Mozilla/5.0\r"],
                          ["-H", "X-A: b\r\nX-Injected: yes"], ["-H", "Bad Name: v"]] {
            let refused = try runner.fetch([plain], smuggling)
            XCTAssertEqual(refused.status, 2, "\(smuggling): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains(smuggling[0] == "-H" ? "header" : "user-agent '"), refused.stderr)
        }
        let lineBreak = try runner.fetch([plain], ["--user-agent", "evil\nmissing originals/x.jpg: forged"])
        XCTAssertEqual(lineBreak.status, 2)
        XCTAssertEqual(lineBreak.stderr.split(separator: "\n").count, 1, "the value is shown on the message's line: \(lineBreak.stderr)")
        let empty = server.url("/photo/empty-header?seed=eh")
        XCTAssertEqual(try runner.fetch([empty], ["-H", "X-Empty;"]).outcome(empty), "stored")
        let sent = try JSONDecoder().decode([String: String].self, from: server.get("/_headers/empty-header"))
        XCTAssertEqual(sent["X-Empty"], "", "curl's 'Name;' sends the header empty")
    }

    func testPasswordInAURLIsSentButNeverRecordedOrShown() throws {
        func withCredentials(_ url: String, _ userinfo: String) -> String {
            url.replacingOccurrences(of: "http://127.0.0.1", with: "http://\(userinfo)@127.0.0.1")
        }
        let plain = server.url("/photo/cred?seed=cred")
        let listed = withCredentials(plain, "alice:s3cret")
        let target = withCredentials(server.url("/photo/cred-target?seed=credt"), "bob:hunter2")
        let redirecting = server.url("/redirect-to/cred-redirect?to=") + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let invalid = "ftp://carol:pw3@127.0.0.1/x.jpg"
        let unparsable = "http://dave:pw4@127.0.0.1:99999/a b.jpg"
        let overLong = "http://erin:pw5" + String(repeating: "x", count: 2 << 20) + "@127.0.0.1/x.jpg"
        let output = try runner.fetch([listed, redirecting, invalid, unparsable, overLong])
        XCTAssertEqual(output.status, 1, "the ftp line fails: \(output.stderr)")

        let sent = try JSONDecoder().decode([String: String].self, from: server.get("/_headers/cred"))
        XCTAssertEqual(sent["Authorization"], "Basic " + Data("alice:s3cret".utf8).base64EncodedString(), "the request still carries the password")
        let recorded = withCredentials(plain, "alice")
        XCTAssertEqual(output.outcome(recorded), "stored", output.stdout)
        XCTAssertEqual(output.record(recorded)?["final_url"] as? String, recorded)
        XCTAssertEqual(output.outcome(redirecting), "stored", output.stdout)
        let redirectedTo = withCredentials(server.url("/photo/cred-target?seed=credt"), "bob")
        XCTAssertEqual(output.record(redirecting)?["final_url"] as? String, redirectedTo)
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        XCTAssertEqual(try catalog.source(url: redirecting)?.finalURL, redirectedTo, "where the redirect led, without bob's password")
        XCTAssertEqual(output.outcome("ftp://carol@127.0.0.1/x.jpg"), "failed", output.stdout)

        // (bob's password is in the query of the redirecting URL itself: not a secret there.)
        let secrets = ["s3cret", "pw3", "pw4", "pw5"]
        for secret in secrets {
            XCTAssertFalse(output.stdout.contains(secret) || output.stderr.contains(secret), "\(secret) shown:\n\(output.stdout)\n\(output.stderr)")
        }
        let files = FileManager.default.enumerator(atPath: runner.library.path)?.allObjects as? [String] ?? []
        XCTAssertTrue(files.contains("catalog.sqlite") && files.contains("journal.jsonl"), "\(files)")
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: runner.library.appendingPathComponent(file).path) else { continue }
            for secret in secrets {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(file) keeps \(secret)")
            }
        }

        let strict = try runner.fetch([], ["--strict", "--url", "http://frank:pw6@127.0.0.1:99999/x.jpg"])
        XCTAssertEqual(strict.status, 2)
        XCTAssertTrue(strict.stderr.contains("--url http://frank@127.0.0.1:99999/x.jpg"), strict.stderr)
        XCTAssertFalse(strict.stderr.contains("pw6"), strict.stderr)
        let comment = try runner.fetch([], ["--url", "#http://gina:pw7@h/x"])
        XCTAssertEqual(comment.status, 2)
        XCTAssertTrue(comment.stderr.contains("#http://gina@h/x"), comment.stderr)
        XCTAssertFalse(comment.stderr.contains("pw7"), comment.stderr)

        // The next run finds the URL, password and all, under its recorded form: no request.
        let again = try runner.fetch([listed])
        XCTAssertEqual(again.outcome(recorded), "skipped", again.stdout)
        XCTAssertEqual(try server.requestTimes("cred").count, 1)
    }

    func testAFailureWithAnotherPasswordKeepsTheRecordOfTheStoredCopy() throws {
        let path = "/auth/pair?seed=pair&user=alice&password=right&delay=0.05"
        func with(_ userinfo: String) -> String {
            server.url(path).replacingOccurrences(of: "http://127.0.0.1", with: "http://\(userinfo)@127.0.0.1")
        }
        // Two requests (other credentials), one record: the later 401 must not replace the copy's.
        let output = try runner.fetch([with("alice:right"), with("alice:wrong")])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.records.compactMap { $0["outcome"] as? String }.sorted(), ["failed", "stored"], output.stdout)
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        XCTAssertNotNil(try catalog.source(url: with("alice"))?.sha256, "the record names the stored copy")
        let again = try runner.fetch([with("alice:right")])
        XCTAssertEqual(again.outcome(with("alice")), "skipped", again.stdout)
        XCTAssertEqual(try server.requestTimes("pair").count, 2)
    }

    func testInternationalHostNameThroughResolve() throws {
        // bücher.test is never looked up: --resolve pins its ASCII form to the fixture server,
        // so the fetch works only if the name was converted (under any locale).
        let url = "http://bücher.test:\(server.port)/photo/idn?seed=idn"
        let output = try runner.fetch([url], ["--resolve", "xn--bcher-kva.test:\(server.port):127.0.0.1", "--retries", "0"],
                                      environment: ["LANG": "C", "LC_ALL": "C"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(url), "stored", output.stderr)
        let headers = try JSONDecoder().decode([String: String].self, from: server.get("/_headers/idn"))
        XCTAssertEqual(headers["Host"], "xn--bcher-kva.test:\(server.port)")
        for bad in ["no-port", "host:0:127.0.0.1", "host:80:", ":80:127.0.0.1", "host:http:127.0.0.1", "host:80:localhost",
                    "host:80:999.1.1.1", "host:80:,", "host:80:::1", "bücher.test:80:127.0.0.1"] {
            let refused = try runner.fetch([url], ["--resolve", bad])
            XCTAssertEqual(refused.status, 2, bad)
            XCTAssertTrue(refused.stderr.contains("--resolve") && refused.stderr.contains(bad), refused.stderr)
        }
    }

    func testGzipEncodedBodyIsStoredDecoded() throws {
        let url = server.url("/gzip/zipped")
        let output = try runner.fetch([url])
        XCTAssertEqual(output.outcome(url), "stored")
        let path = try XCTUnwrap(output.record(url)?["path"] as? String)
        XCTAssertEqual(try runner.contents(of: path), try server.get("/photo/zipped"))
    }

    func testEveryContentCodingIsStoredDecoded() throws {
        let codings = ["gzip", "gzip2", "deflate", "raw-deflate", "br"]
        let urls = codings.map { server.url("/encoded/\($0)?as=\($0)") }
        let output = try runner.fetch(urls)
        XCTAssertEqual(output.status, 0, output.stderr)
        for (coding, url) in zip(codings, urls) {
            XCTAssertEqual(output.outcome(url), "stored", coding)
            let path = try XCTUnwrap(output.record(url)?["path"] as? String, coding)
            XCTAssertEqual(try runner.contents(of: path), try server.get("/photo/\(coding)"), "\(coding): stored decoded")
        }
        let headers = try JSONDecoder().decode([String: String].self, from: server.get("/_headers/encoded/gzip"))
        XCTAssertNil(headers["Accept-Encoding"], "compression is not asked for: \(headers)")
    }

    func testACompressedBodyCutShortIsRetriedNeverStored() throws {
        // The Content-Length matches what is sent: only the compressed stream shows the cut.
        let once = server.url("/encoded/once?as=gzip&cut=once"), always = server.url("/encoded/always?as=br&cut=always")
        let corrupt = server.url("/encoded/junk?as=gzip&junk=1"), unknown = server.url("/encoded/unknown?as=bogus")
        let output = try runner.fetch([once, always, corrupt, unknown], ["--retries", "1"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(once), "stored")
        XCTAssertEqual(output.record(once)?["attempts"] as? Int, 2)
        let path = try XCTUnwrap(output.record(once)?["path"] as? String)
        XCTAssertEqual(try runner.contents(of: path), try server.get("/photo/once"))
        XCTAssertEqual(output.outcome(always), "failed")
        XCTAssertEqual(output.record(always)?["attempts"] as? Int, 2)
        XCTAssertTrue((output.record(always)?["reason"] as? String ?? "").contains("br stream ends before its end"), output.stderr)
        XCTAssertEqual(output.outcome(corrupt), "failed")
        XCTAssertTrue((output.record(corrupt)?["reason"] as? String ?? "").contains("corrupt gzip body"), output.stderr)
        XCTAssertEqual(output.outcome(unknown), "failed")
        XCTAssertTrue((output.record(unknown)?["reason"] as? String ?? "").contains("unsupported Content-Encoding 'bogus'"))
        try runner.assertConsistent()
    }

    func testSecondRunSkipsArchivedURLsWithoutRequests() throws {
        let url = server.url("/photo/again?seed=again")
        let failing = server.url("/status/404")
        let first = try runner.fetch([url, failing])
        XCTAssertEqual(first.outcome(url), "stored")
        let stored = try XCTUnwrap(first.record(url)?["path"] as? String)
        let second = try runner.fetch([url, failing])
        XCTAssertEqual(second.outcome(url), "skipped")
        XCTAssertEqual(second.record(url)?["path"] as? String, stored, "the skipped URL names the original it has")
        XCTAssertNotNil(second.record(url)?["sha256"] as? String)
        XCTAssertEqual(try server.requestTimes("again").count, 1, "no request for an archived URL")
        XCTAssertEqual(second.outcome(failing), "failed", "failed URLs are tried again")
        XCTAssertEqual(try server.requestTimes("status/404").count, 2)
    }

    func testRefreshThatGetsTheSameBytesAgainIsUnchanged() throws {
        // The server ignores If-Modified-Since and sends the same bytes with a 200.
        let url = server.url("/photo/same?seed=same&lm=Wed,%2001%20May%202024%2010:00:00%20GMT")
        XCTAssertEqual(try runner.fetch([url]).outcome(url), "stored")
        let refreshed = try runner.fetch([url], ["--refresh"])
        XCTAssertEqual(refreshed.outcome(url), "unchanged", refreshed.stderr)
        XCTAssertEqual(refreshed.status, 0)
        try runner.assertConsistent()
    }

    func testRefreshRevalidatesWithIfModifiedSinceWhenThereIsNoETag() throws {
        let lastModified = "Wed, 01 May 2024 10:00:00 GMT"
        let url = server.url("/dated/lm?seed=lm&lm=Wed,%2001%20May%202024%2010:00:00%20GMT")
        let first = try runner.fetch([url])
        XCTAssertEqual(first.outcome(url), "stored", first.stderr)
        let stored = try runner.contents(of: try XCTUnwrap(first.record(url)?["path"] as? String))
        let refreshed = try runner.fetch([url], ["--refresh"])
        XCTAssertEqual(refreshed.status, 0, refreshed.stderr)
        XCTAssertEqual(refreshed.outcome(url), "unchanged", refreshed.stderr)
        XCTAssertEqual(refreshed.record(url)?["http_status"] as? Int, 304, "answered by the conditional request")
        let headers = try JSONDecoder().decode([String: String].self, from: server.get("/_headers/dated/lm"))
        XCTAssertEqual(headers["If-Modified-Since"], lastModified, "\(headers)")
        XCTAssertNil(headers["If-None-Match"], "no ETag was ever sent: \(headers)")
        XCTAssertEqual(try server.requestTimes("dated-304/lm").count, 1)
        XCTAssertEqual(try server.requestTimes("dated/lm").count, 1, "the refresh downloaded nothing")
        XCTAssertEqual(try runner.contents(of: try XCTUnwrap(first.record(url)?["path"] as? String)), stored)
        try runner.assertConsistent()
    }

    func testRefreshRevalidatesWithETag() throws {
        let unchanged = server.url("/versioned/same")
        let changing = server.url("/versioned/moving?change=1")
        let first = try runner.fetch([unchanged, changing])
        XCTAssertEqual(first.outcome(unchanged), "stored")
        let second = try runner.fetch([unchanged, changing], ["--refresh"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.outcome(unchanged), "unchanged")
        XCTAssertEqual(second.record(unchanged)?["http_status"] as? Int, 304)
        XCTAssertEqual(try server.requestTimes("versioned-304/same").count, 1, "answered by a conditional request")
        XCTAssertEqual(second.outcome(changing), "stored", "new bytes are stored as a new original")
        let catalog = try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
        XCTAssertEqual(try catalog.countOriginals(), 3, "the old original is kept")
        try runner.assertConsistent()
    }

    func testInvalidLinesAreReportedWithFileAndLine() throws {
        let good = server.url("/photo/fine?seed=fine")
        let list = runner.workDirectory.appendingPathComponent("mixed.txt")
        try "# header\n\n\(good)\nnot a url\nftp://example.invalid/x.jpg\n".write(to: list, atomically: true, encoding: .utf8)
        let output = try runner.run([list.path])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(good), "stored")
        XCTAssertTrue(output.stderr.contains("\(list.path):4:"), output.stderr)
        XCTAssertTrue(output.stderr.contains("\(list.path):5:"), output.stderr)
        XCTAssertEqual(output.records.filter { $0["outcome"] as? String == "failed" }.count, 2)

        let strict = try runner.run([list.path, "--strict"])
        XCTAssertEqual(strict.status, 2)
        XCTAssertTrue(strict.stderr.contains("\(list.path):4"), strict.stderr)
        XCTAssertEqual(strict.records.count, 0, "--strict fetches nothing")

        for blank in ["", " ", "#comment"] {
            for extra in [[], ["--strict"]] {
                let refused = try runner.run(["--url", blank, "--url", good] + extra)
                XCTAssertEqual(refused.status, 2, "--url '\(blank)' \(extra): \(refused.stderr)")
                XCTAssertEqual(refused.records.count, 0, "nothing fetched")
            }
        }

        let strictStdin = try runner.run(["-", "--strict"], stdin: Data("\(good)\nnot a url\n".utf8))
        XCTAssertEqual(strictStdin.status, 2)
        XCTAssertTrue(strictStdin.stderr.contains("<stdin>:2:"), "named as the user gave it: \(strictStdin.stderr)")
    }

    func testLinesWithBytesThatAreNotUTF8OrWithANULAreInvalidNotMerged() throws {
        let base = server.url("/photo/")
        let list = runner.workDirectory.appendingPathComponent("bytes.txt")
        var bytes = Data()
        for line in [Data((base + "caf").utf8) + Data([0xE9]), Data((base + "caf").utf8) + Data([0xE8]),
                     Data((base + "z").utf8) + Data([0x00]) + Data("a".utf8), Data((base + "ok?seed=ok").utf8)] {
            bytes += line + Data([0x0A])
        }
        try bytes.write(to: list)
        let output = try runner.run([list.path])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.outcome(base + "ok?seed=ok"), "stored")
        for line in 1...3 { XCTAssertTrue(output.stderr.contains("\(list.path):\(line):"), output.stderr) }
        XCTAssertTrue(output.stderr.contains("not UTF-8"), output.stderr)
        XCTAssertTrue(output.stderr.contains("U+0000"), output.stderr)
        XCTAssertEqual(output.records.count, 4, "no line merged into another as a repeat")
        XCTAssertEqual(try SQLiteCatalog(path: runner.library.appendingPathComponent("catalog.sqlite").path, readOnly: true)
            .allSources().map(\.url).filter { $0.hasSuffix("/z") }, [], "nothing fetched in place of the line with a NUL")
    }

    func testAPhotoPipedInAsTheListIsRefused() throws {
        var photo = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0])
        for line in 0..<200 { photo += Data("\u{1B}[31m junk \(line)\n".utf8) }
        for arguments in [["-"], ["-", "--strict"]] {
            let output = try runner.run(arguments, stdin: photo)
            XCTAssertEqual(output.status, 2, "\(arguments): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains("<stdin> is a JPEG image, not a text list of URLs"), output.stderr)
            XCTAssertFalse(output.stderr.contains("<stdin>:2"), "no line of the photo reported: \(output.stderr)")
            XCTAssertEqual(output.records.count, 0)
        }
    }

    func testAListThatIsAPipeOrAFIFOIsReadOnceAndWhole() throws {
        // `shoebox fetch <(grep … list)` gives a path to a pipe, as /dev/stdin does here: it was
        // read ahead by the checks, so the run found nothing left ("0 URLs", exit 0).
        let urls = (1...3).map { server.url("/photo/pipe\($0)?seed=pipe\($0)") }
        let piped = try runner.run(["/dev/stdin"], stdin: Data((urls.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(urls.compactMap(piped.outcome), ["stored", "stored", "stored"], piped.stderr)

        // A named FIFO whose writer comes after the run started, with and without --strict
        // (which reads the list twice, from a copy).
        for (index, extra) in [[], ["--strict"]].enumerated() {
            let fifo = runner.workDirectory.appendingPathComponent("list\(index).fifo").path
            XCTAssertEqual(mkfifo(fifo, 0o600), 0)
            let more = (1...2).map { server.url("/photo/fifo\(index)-\($0)?seed=fifo\(index)x\($0)") }
            let text = Data((more.joined(separator: "\n") + "\n").utf8)
            let writer = Thread {
                // Opening a FIFO to write waits for its reader: this writer comes after shoebox opened it.
                let handle = FileHandle(forWritingAtPath: fifo)
                handle?.write(text)
                try? handle?.close()
            }
            writer.start()
            let output = try runner.run([fifo] + extra)
            XCTAssertEqual(output.status, 0, "\(extra): \(output.stderr)")
            XCTAssertEqual(more.compactMap(output.outcome), ["stored", "stored"], "\(extra): \(output.stderr)")
        }
    }

    func testADeviceGivenAsTheListIsRefusedAtOnce() throws {
        for extra in [[], ["--strict"]] {
            let output = try runner.run(["/dev/zero"] + extra)
            XCTAssertEqual(output.status, 2, "\(extra): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains("/dev/zero is binary data"), output.stderr)
        }
        // A FIFO of binary data under --strict: refused from its first bytes, not copied whole first.
        let fifo = runner.workDirectory.appendingPathComponent("zeros.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            let zeros = Data(count: 1 << 20)
            for _ in 0..<4096 { if (try? handle.write(contentsOf: zeros)) == nil { break } }  // 4 GiB, unless the reader goes
            try? handle.close()
        }
        writer.start()
        let strict = try runner.run([fifo, "--strict"])
        XCTAssertEqual(strict.status, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("zeros.fifo is binary data"), strict.stderr)
    }

    func testStrictReadsSeveralFIFOsInTheOrderGiven() throws {
        // A producer that feeds one FIFO, then the next: reading them out of order would wait forever.
        let names = ["first", "second", "third"]
        let fifos = names.map { runner.workDirectory.appendingPathComponent("\($0).fifo").path }
        for fifo in fifos { XCTAssertEqual(mkfifo(fifo, 0o600), 0) }
        let urls = names.map { server.url("/photo/\($0)?seed=\($0)") }
        let writer = Thread {
            for (fifo, url) in zip(fifos, urls) {
                let handle = FileHandle(forWritingAtPath: fifo)
                handle?.write(Data((url + "\n").utf8))
                try? handle?.close()
            }
        }
        writer.start()
        let output = try runner.run(fifos + ["--strict"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(urls.compactMap(output.outcome), ["stored", "stored", "stored"])
    }

    func testListFromStdinAndURLOption() throws {
        let fromStdin = server.url("/photo/in?seed=in"), fromOption = server.url("/photo/opt?seed=opt")
        let output = try runner.run(["-", "--url", fromOption], stdin: Data("\(fromStdin)\n".utf8))
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.outcome(fromStdin), "stored")
        XCTAssertEqual(output.outcome(fromOption), "stored")
    }

    func testUsageAndInputErrors() throws {
        let noLibrary = try ShoeboxProcess.run(["fetch", "--url", server.url("/photo/x")])
        XCTAssertEqual(noLibrary.status, 2)
        XCTAssertTrue(noLibrary.stderr.contains("--library"), noLibrary.stderr)
        let missingList = try runner.run(["/nonexistent/list.txt"])
        XCTAssertEqual(missingList.status, 2)
        XCTAssertTrue(missingList.stderr.contains("/nonexistent/list.txt"), missingList.stderr)
        let badSize = try runner.run(["--url", server.url("/photo/x"), "--max-size", "lots"])
        XCTAssertEqual(badSize.status, 2)
        XCTAssertTrue(badSize.stderr.contains("--max-size"), badSize.stderr)
        let fromEnvironment = try ShoeboxProcess.run(["fetch", "--url", server.url("/photo/env?seed=env")],
                                                     environment: ["SHOEBOX_LIBRARY": runner.library.path])
        XCTAssertEqual(fromEnvironment.status, 0, fromEnvironment.stderr)
    }

    func testLibraryInAFileOrReadOnlyFolderIsRefused() throws {
        let blocker = runner.workDirectory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let inFile = try ShoeboxProcess.run(["fetch", "--library", blocker.path + "/lib", "--url", server.url("/photo/x")])
        XCTAssertEqual(inFile.status, 4, inFile.stderr)
        XCTAssertTrue(inFile.stderr.contains(blocker.path), inFile.stderr)
        XCTAssertTrue(inFile.stderr.contains("a part of the path is a file, not a folder"), inFile.stderr)
        XCTAssertFalse(inFile.stderr.contains("NSCocoaErrorDomain"), inFile.stderr)

        // A file where the library's own .tmp/ folder goes: the advice is about that file.
        let library = runner.workDirectory.appendingPathComponent("odd")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: library.appendingPathComponent(".tmp"))
        let odd = try ShoeboxProcess.run(["fetch", "--library", library.path, "--url", server.url("/photo/x")])
        XCTAssertEqual(odd.status, 4, odd.stderr)
        XCTAssertTrue(odd.stderr.contains(".tmp is a file where the library keeps a folder; move the file away"), odd.stderr)
    }
}
