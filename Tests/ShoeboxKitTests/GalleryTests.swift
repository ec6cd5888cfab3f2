import Foundation
import XCTest
@testable import ShoeboxKit

final class GalleryTests: XCTestCase {
    /// Six photos of distinct saturated colours over three days and one undated,
    /// one with a hostile file name; thumbnails at 128 and 512.
    static let colors: [(name: String, rgb: [Int])] = [
        ("red", [255, 0, 0]), ("lime", [0, 255, 0]), ("blue", [0, 0, 255]),
        ("yellow", [255, 255, 0]), ("magenta", [255, 0, 255]), ("cyan", [0, 255, 255]),
    ]
    static let hostileName = "originals/2024/05/03/we#ird ?%20&<b>.jpg"

    private func makeLibrary() throws -> TestLibrary {
        let library = try TestLibrary(self)
        let days = ["2024:05:01 09:00:00", "2024:05:01 08:00:00", "2024:05:03 12:00:00", "2024:05:03 13:00:00",
                    "2024:06:10 07:30:00", nil]
        for (index, color) in Self.colors.enumerated() {
            let day = days[index].map { $0.prefix(10).replacingOccurrences(of: ":", with: "/") } ?? "2020/01/01"
            let path = index == 3 ? Self.hostileName : "originals/\(day)/\(color.name).jpg"
            // Landscape only, so the whole page fits the screenshot's viewport.
            try ImageFixtures.solid(at: try library.prepare(path), width: index % 2 == 0 ? 640 : 480,
                                    height: index % 2 == 0 ? 480 : 320, color: color.name)
            try library.add(path, takenAt: days[index], make: index == 0 ? "Evil <script>alert(1)</script>" : "Canon",
                            model: "Canon EOS 5D", latitude: 48.8584, longitude: 2.2945)
        }
        _ = try ThumbnailUpdater(libraryRoot: library.root, catalog: library.catalog,
                                 options: ThumbnailOptions(sizes: [.init(width: 128, height: 128), .init(width: 512, height: 512)]))
            .run(prune: false)
        return library
    }

    func testPageIsGroupedByDayEscapedRelativeAndWithoutGPSUnlessAsked() throws {
        let library = try makeLibrary()
        let result = try GalleryWriter(libraryRoot: library.root, catalog: library.catalog).write(showGPS: false)
        XCTAssertEqual(result.page, library.root + "/gallery/index.html")
        XCTAssertEqual(result.images, 6)
        let html = try String(contentsOfFile: result.page, encoding: .utf8)
        let headings = html.components(separatedBy: "<h2>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        XCTAssertEqual(headings, ["2024-06-10", "2024-05-03", "2024-05-01", "Undated"])
        // Within a day, capture order: lime (08:00) before red (09:00).
        let lime = try XCTUnwrap(html.range(of: "lime.jpg\"")), red = try XCTUnwrap(html.range(of: "red.jpg\""))
        XCTAssertLessThan(lime.lowerBound, red.lowerBound)
        XCTAssertFalse(html.contains("<script"), "catalog text must be escaped")
        XCTAssertTrue(html.contains("Evil &lt;script&gt;alert(1)&lt;/script&gt; Canon EOS 5D"))
        XCTAssertTrue(html.contains(">Canon EOS 5D</span> · <time>2024-05-03 12:00</time>"), "make not repeated")
        XCTAssertTrue(html.contains("we%23ird%20%3F%2520%26%3Cb%3E.jpg"), "file names percent-encoded")
        XCTAssertFalse(html.contains("48.85"), "no GPS without --gps")
        XCTAssertFalse(html.contains("2.2945"))
        let links = matches(of: #"(?:href|src)="([^"]*)""#, in: html)
        XCTAssertEqual(links.count, 12)
        for link in links {
            XCTAssertFalse(link.contains(":") || link.hasPrefix("/"), "not relative: \(link)")
            let file = library.root + "/gallery/" + (link.removingPercentEncoding ?? "").replacingOccurrences(of: "&amp;", with: "&")
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), "broken link \(link)")
        }
        XCTAssertEqual(html.components(separatedBy: "srcset=").count - 1, 6)
        XCTAssertEqual(html.components(separatedBy: "loading=\"lazy\"").count - 1, 6)

        let withGPS = try GalleryWriter(libraryRoot: library.root, catalog: library.catalog)
            .write(to: library.root + "/elsewhere/deeper", showGPS: true)
        let gpsHTML = try String(contentsOfFile: withGPS.page, encoding: .utf8)
        XCTAssertEqual(gpsHTML.components(separatedBy: "48.85840, 2.29450").count - 1, 6)
        XCTAssertTrue(gpsHTML.contains("src=\"../../thumbnails/128/"))
    }

    func testAnOriginalWhoseFileIsMissingIsShownWithoutALinkThatLeadsNowhere() throws {
        let library = try makeLibrary()
        try library.deleteOriginalFile("originals/2024/05/01/red.jpg")
        let result = try GalleryWriter(libraryRoot: library.root, catalog: library.catalog).write(showGPS: false)
        XCTAssertEqual(result.images, 6)
        XCTAssertEqual(result.missingOriginals, 1)
        let html = try String(contentsOfFile: result.page, encoding: .utf8)
        XCTAssertFalse(html.contains("href=\"../originals/2024/05/01/red.jpg\""))
        XCTAssertTrue(html.contains("original missing"))
        for link in matches(of: #"(?:href|src)="([^"]*)""#, in: html) {
            let file = library.root + "/gallery/" + (link.removingPercentEncoding ?? "").replacingOccurrences(of: "&amp;", with: "&")
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), "broken link \(link)")
        }
    }

    private func record(_ size: String, width: Int, format: String = "jpeg", settings: String) -> ThumbnailRecord {
        ThumbnailRecord(originalSHA256: "aa", size: size, path: "thumbnails/\(size)/p.jpg.\(format)", format: format,
                        width: width, height: width / 2, bytes: 1, createdAt: "2024-01-01T00:00:00Z", settings: settings)
    }

    /// Before, a srcset mixed a 3:1 crop (--fit cover) with the whole picture at other widths.
    func testASrcsetHoldsOnePictureMadeOneWay() {
        let inside = "jpeg q80 inside stripped r2", cover = "jpeg q80 cover stripped r2"
        let chosen = GalleryBuilder.choose([
            record("256", width: 256, settings: inside), record("300x100", width: 300, settings: cover),
            record("1024", width: 600, settings: inside),
        ])
        XCTAssertEqual(chosen?.map(\.size), ["256", "1024"], "the set with more sizes, never mixed")
    }

    /// Before, thumbnails made with --keep-metadata (GPS inside) were linked from a page made without --gps.
    func testThumbnailsKeepingMetadataAreUsedOnlyWithGPS() throws {
        let original = OriginalRecord(sha256: "aa", path: "originals/2024/01/01/p.jpg", bytes: 1, contentType: "image/jpeg",
                                      addedAt: "2024-01-01T00:00:00Z")
        let thumbnails = [record("256", width: 256, settings: "jpeg q80 inside keep-metadata r2"),
                          record("1024", width: 1024, settings: "jpeg q80 inside keep-metadata r2"),
                          record("256", width: 256, format: "webp", settings: "webp q80 inside stripped r2")]
        let plain = GalleryBuilder.sections(originals: [original], thumbnails: thumbnails, allowMetadata: false) { _ in true }
        XCTAssertEqual(plain.first?.items.first?.thumbnails.map(\.format), ["webp"])
        let withGPS = GalleryBuilder.sections(originals: [original], thumbnails: thumbnails, allowMetadata: true) { _ in true }
        XCTAssertEqual(withGPS.first?.items.first?.thumbnails.map(\.size), ["256", "1024"])
    }

    func testCameraNameDoesNotRepeatTheMake() {
        func camera(_ make: String?, _ model: String?) -> String? {
            GalleryItem(original: OriginalRecord(sha256: "a", path: "originals/x.jpg", bytes: 1, contentType: "image/jpeg",
                                                 make: make, model: model, addedAt: ""), thumbnails: []).camera
        }
        XCTAssertEqual(camera("NIKON CORPORATION", "NIKON D850"), "NIKON D850")
        XCTAssertEqual(camera("Canon", "Canon EOS R5"), "Canon EOS R5")
        XCTAssertEqual(camera("FUJIFILM", "X-T4"), "FUJIFILM X-T4")
        XCTAssertEqual(camera("Apple", nil), "Apple")
        XCTAssertEqual(camera(nil, "iPhone 12"), "iPhone 12")
    }

    func testCaptionGivesATimeOfDayOnlyForACaptureTime() {
        func caption(_ datedBy: CaptureDateSource?) -> String? {
            GalleryItem(original: OriginalRecord(sha256: "a", path: "originals/x.jpg", bytes: 1, contentType: "image/jpeg",
                                                 takenAt: "2024:05:01 10:20:30", datedBy: datedBy, addedAt: ""),
                        thumbnails: []).dateText
        }
        XCTAssertEqual(caption(.exif), "2024-05-01 10:20")
        XCTAssertEqual(caption(nil), "2024-05-01 10:20", "schema 1 rows: as before")
        for fallback in [CaptureDateSource.lastModified, .fetchTime, .fileTime] {
            XCTAssertEqual(caption(fallback), "2024-05-01", fallback.rawValue)
        }
    }

    /// Before, alt text was the file name, and a HEIC or TIFF original was linked from its
    /// picture: browsers downloaded it instead of showing anything.
    func testAltTextSaysWhatIsKnownAndOriginalsBrowsersCannotShowAreOfferedApart() throws {
        func item(_ path: String, _ type: String, make: String? = "Canon", model: String? = "Canon EOS R5",
                  takenAt: String? = "2024:05:01 10:20:30") -> GalleryItem {
            GalleryItem(original: OriginalRecord(sha256: path, path: path, bytes: 1, contentType: type, takenAt: takenAt,
                                                 make: make, model: model, addedAt: "2024-06-01T00:00:00Z"),
                        thumbnails: [record("256", width: 256, settings: "s"), record("1024", width: 1024, settings: "s")])
        }
        XCTAssertEqual(item("originals/a.jpg", "image/jpeg").altText, "Photo taken 2024-05-01 10:20 with Canon EOS R5")
        XCTAssertEqual(item("originals/a.jpg", "image/jpeg", make: nil, model: nil).altText, "Photo taken 2024-05-01 10:20")
        XCTAssertEqual(item("originals/IMG_1.jpg", "image/jpeg", make: nil, model: nil, takenAt: nil).altText, "IMG_1.jpg")

        let heic = item("originals/2024/05/01/IMG_2.HEIC", "image/heic")
        let tiff = item("originals/2024/05/01/scan.tif", "image/tiff")
        let jpeg = item("originals/2024/05/01/IMG_3.jpg", "image/jpeg")
        XCTAssertFalse(heic.browserShowsOriginal)
        XCTAssertFalse(tiff.browserShowsOriginal)
        XCTAssertTrue(jpeg.browserShowsOriginal)
        let page = GalleryPage(sections: [GallerySection(day: "2024-05-01", items: [heic, tiff, jpeg])],
                               libraryPrefix: "../", showGPS: false).html()
        let figures: [String] = Array(page.components(separatedBy: "<figure>").dropFirst())
        XCTAssertEqual(figures.count, 3)
        let largest = "../" + heic.thumbnails[1].path
        XCTAssertTrue(figures[0].hasPrefix("<a href=\"\(largest)\"><img"), figures[0])
        XCTAssertTrue(figures[0].contains("<a class=\"original\" href=\"../originals/2024/05/01/IMG_2.HEIC\" download>original (HEIC)</a>"), figures[0])
        XCTAssertTrue(figures[1].contains("href=\"../originals/2024/05/01/scan.tif\" download>original (TIF)</a>"), figures[1])
        XCTAssertTrue(figures[2].hasPrefix("<a href=\"../originals/2024/05/01/IMG_3.jpg\"><img"), figures[2])
        XCTAssertFalse(figures[2].contains("download"), figures[2])
        XCTAssertTrue(figures[2].contains("alt=\"Photo taken 2024-05-01 10:20 with Canon EOS R5\""), figures[2])
    }

    func testEveryThumbnailLoadsInChromiumEvenAfterTheLibraryMoves() throws {
        let library = try makeLibrary()
        let page = try GalleryWriter(libraryRoot: library.root, catalog: library.catalog).write(showGPS: false).page
        let counts = try HeadlessChromium.probe(page)
        XCTAssertEqual(counts.images, 6)
        XCTAssertEqual(counts.loaded, 6, "broken images on the page")
        XCTAssertEqual(counts.candidates, 12, "two sizes each in srcset")
        XCTAssertEqual(counts.candidatesLoaded, 12)

        // Copied elsewhere as a whole, the library's gallery still works (relative links).
        let moved = library.root + "-moved"
        try FileManager.default.copyItem(atPath: library.root, toPath: moved)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: moved) }
        try FileManager.default.removeItem(atPath: library.root + "/thumbnails")
        let movedCounts = try HeadlessChromium.probe(moved + "/gallery/index.html")
        XCTAssertEqual(movedCounts.loaded, 6)
        XCTAssertEqual(movedCounts.candidatesLoaded, 12)

        // The probe does see a broken image: remove one large thumbnail.
        let large = moved + "/thumbnails/512/2024/05/01/red.jpg.jpg"
        try FileManager.default.removeItem(atPath: large)
        let broken = try HeadlessChromium.probe(moved + "/gallery/index.html")
        XCTAssertEqual(broken.candidates, 12)
        XCTAssertEqual(broken.candidatesLoaded, 11)
    }

    func testScreenshotShowsEveryThumbnail() throws {
        let library = try makeLibrary()
        let page = try GalleryWriter(libraryRoot: library.root, catalog: library.catalog).write(showGPS: false).page
        let png = try HeadlessChromium.screenshot(page, to: library.root + "/shot.png")
        let (width, height) = try ImageFixtures.size(png)
        XCTAssertEqual([width, height], [1280, 2000])
        let counts = try HeadlessChromium.countPixels(in: png, colors: Self.colors.map(\.rgb))
        // Each thumbnail is drawn about 240 px wide: tens of thousands of pixels of
        // its colour, over a thousand once sampled 1 in 16.
        let shown = counts.filter { $0 > 1_000 }.count
        XCTAssertEqual(shown, 6, "loaded images in the screenshot, per colour: \(zip(Self.colors.map(\.name), counts).map { "\($0)=\($1)" })")
    }

    private func matches(of pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
