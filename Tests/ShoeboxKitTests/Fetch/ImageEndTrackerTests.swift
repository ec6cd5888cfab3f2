import XCTest
@testable import ShoeboxKit

/// A body cut anywhere before the end its format declares is incomplete; a whole
/// one is complete, however its bytes arrive.
final class ImageEndTrackerTests: XCTestCase {
    private static let photos = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples/photos")

    private func verdict(_ bytes: [UInt8], pieces: Int = 1) -> Bool? {
        var tracker = ImageEndTracker()
        let size = max(1, (bytes.count + pieces - 1) / pieces)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            bytes[start..<end].withUnsafeBytes { tracker.consume($0) }
            start = end
        }
        return tracker.isComplete
    }

    /// Whole: complete in one piece, in many, byte by byte. Cut at every point (or a
    /// sample of them) before `end`: incomplete. (Below 18 bytes the format itself may
    /// not be known yet; such a body is no image to the content checks anyway.)
    private func assertEnds(_ bytes: [UInt8], at end: Int, _ name: String, unjudged: Int = 0,
                            file: StaticString = #filePath, line: UInt = #line) {
        for pieces in [1, 7, bytes.count] {
            XCTAssertEqual(verdict(bytes, pieces: pieces), true, "\(name) whole, in \(pieces) pieces", file: file, line: line)
        }
        let step = max(1, end / 400)
        var judged = 0, cuts = 0
        for cut in stride(from: 18, to: end, by: step) {
            let cutVerdict = verdict(Array(bytes[..<cut]), pieces: 3)
            XCTAssertNotEqual(cutVerdict, true, "\(name) cut at \(cut) of \(bytes.count)", file: file, line: line)
            cuts += 1
            judged += cutVerdict == false ? 1 : 0
        }
        XCTAssertGreaterThanOrEqual(judged, cuts - unjudged, "\(name): cuts found incomplete", file: file, line: line)
    }

    private func sample(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.photos.appendingPathComponent(name)))
    }

    func testSamplePhotosOfEveryJudgedFormat() throws {
        for name in ["garden.jpg", "oslo-fjord.jpg", "scanned-print.jpg", "lima-coast.png", "dead-sea.webp", "manhattan.heic"] {
            let bytes = try sample(name)
            assertEnds(bytes, at: bytes.count, name)
        }
    }

    func testAHEIFCutBetweenItsBoxesIsIncompleteWhereItsItemsSayItEnds() throws {
        // Cut right after `meta`, before `mdat`: every box whole, yet the items `iloc`
        // places in the file are not there.
        let heic = try sample("manhattan.heic")
        var boundaries: [Int] = []
        var offset = 0
        while offset + 8 <= heic.count {
            offset += heic[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            boundaries.append(offset)
        }
        XCTAssertEqual(boundaries.last, heic.count)
        XCTAssertGreaterThanOrEqual(boundaries.count, 3, "ftyp, meta, mdat")
        for boundary in boundaries.dropLast() {
            XCTAssertEqual(verdict(Array(heic[..<boundary])), false, "cut at the box boundary \(boundary)")
        }
    }

    func testAJPEGEndsAtItsEndMarkerWhateverFollows() throws {
        // A motion photo carries a video after the JPEG's end marker; the marker also
        // appears inside the EXIF thumbnail, which must not count as the end.
        let photo = try sample("garden.jpg")
        let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        var withThumbnail = Array(photo[0..<2]) + [0xFF, 0xE1, 0x00, UInt8(2 + thumbnail.count)] + thumbnail
        withThumbnail += photo[2...]
        assertEnds(withThumbnail + Array("....ftypmp42 and the video".utf8), at: withThumbnail.count, "JPEG with a thumbnail and a trailer")
    }

    func testAProgressiveJPEGEndsAfterItsLastScan() {
        let segment = { (marker: UInt8, body: [UInt8]) -> [UInt8] in
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        // Entropy data with a stuffed 0xFF and a restart marker; a table between two scans.
        let scan: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56]
        var jpeg: [UInt8] = [0xFF, 0xD8] + segment(0xDB, [UInt8](repeating: 1, count: 65))
        jpeg += segment(0xDA, [1, 1, 0, 0, 63, 0]) + scan
        jpeg += segment(0xC4, [UInt8](repeating: 2, count: 20))
        jpeg += [0xFF, 0xFF] + segment(0xDA, [1, 1, 0, 0, 63, 0]) + scan + [0xFF, 0xD9]
        assertEnds(jpeg, at: jpeg.count, "progressive JPEG")
    }

    func testContainersWithDeclaredSizes() {
        let box = { (type: String, payload: Int) -> [UInt8] in
            let size = 8 + payload
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                + Array(type.utf8) + [UInt8](repeating: 7, count: payload)
        }
        let fileType: [UInt8] = [0, 0, 0, 20] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)
        let heif = fileType + box("meta", 100) + box("mdat", 3000)
        // Its meta box has no iloc: a cut inside the 8-byte header after a whole box is not judged.
        assertEnds(heif, at: heif.count, "HEIF boxes", unjudged: 2)
        XCTAssertEqual(verdict(fileType), false, "cut right after its first box")
        XCTAssertNil(verdict(fileType + box("meta", 100)), "cut after its metadata, where the data may have been")
        // A box with a 64-bit size.
        let large: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0, 40] + [UInt8](repeating: 9, count: 24)
        assertEnds(heif + large, at: heif.count + large.count, "HEIF with a large box", unjudged: 3)

        // A box of 8 bytes (an empty `free`) at the end: nothing left to pass over.
        let freeBox: [UInt8] = [0, 0, 0, 8] + Array("free".utf8)
        XCTAssertEqual(verdict(heif + freeBox), true)
        XCTAssertNil(verdict(heif + [0, 0, 0]), "three bytes past the last box: padding or a cut header")

        // GIF: screen descriptor with a global colour table, an extension, an image whose
        // data has a 0x3B byte, the trailer; then a newline some servers add.
        var gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 0xFF, 0xFF, 0xFF]
        gif += [0x21, 0xF9, 4, 0, 0, 0, 0, 0]
        gif += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + [2, 3, 0x3B, 0x3B, 0x3B, 0] + [0x3B]
        assertEnds(gif + [0x0A], at: gif.count, "GIF with a byte after its trailer")
        XCTAssertEqual(verdict(Array(gif[..<(gif.count - 3)])), false, "cut where the last byte is 0x3B")

        let bmp = Array("BM".utf8) + [70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0] + [UInt8](repeating: 0, count: 52)
        XCTAssertNil(verdict(bmp), "BMP writers get the size field wrong: not judged")
        let jpegLS: [UInt8] = [0xFF, 0xD8, 0xFF, 0xF7, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0] + [0xFF, 0x7F, 1, 2]
        XCTAssertNil(verdict(jpegLS), "JPEG-LS scans hold 0xFF 0x7F: not judged")
    }

    func testTheVerdictOnHostileBytesDoesNotDependOnHowTheyArrive() {
        var generator = SystemRandomNumberGenerator()
        let starts: [[UInt8]] = [[0xFF, 0xD8], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0, 0, 0, 12] + Array("ftypavif".utf8),
                                 Array("RIFF".utf8) + [9, 9, 0, 0] + Array("WEBP".utf8), Array("GIF89a".utf8),
                                 Array("BM".utf8) + [0, 1, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0]]
        for round in 0..<3000 {
            let start = starts[round % starts.count]
            // Bytes that often look like structure: markers, small sizes, box types.
            let alphabet: [UInt8] = [0xFF, 0xD9, 0xDA, 0x00, 0xD0, 0x01, 0x00, 0x08, 0x10, 0x49, 0x45, 0x4E, 0x44, 0x3B]
            let tail = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                Bool.random(using: &generator) ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            let bytes = start + tail
            XCTAssertEqual(verdict(bytes, pieces: 1), verdict(bytes, pieces: Int.random(in: 2...bytes.count, using: &generator)),
                           "\(bytes)")
        }
    }

    func testFormatsItDoesNotFollowAreNotJudged() {
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0] + [UInt8](repeating: 0, count: 40)
        XCTAssertNil(verdict(tiff))
        XCTAssertNil(verdict(Array("<!doctype html><html></html>".utf8)))
        XCTAssertNil(verdict(Array("hi".utf8)))
        XCTAssertEqual(verdict([0xFF, 0xD8, 0xFF, 0xE1]), false, "four bytes of a JPEG")
        XCTAssertNil(verdict([0xFF, 0xD8, 0x12, 0x34] + [UInt8](repeating: 0, count: 40)), "damaged: no marker where one must be")
    }
}
