import XCTest
@testable import ShoeboxKit

final class ThumbnailSizeTests: XCTestCase {
    func testParsesLongerSideAndBoxes() throws {
        XCTAssertEqual(try ThumbnailSize.parse("256"), ThumbnailSize(width: 256, height: 256))
        XCTAssertEqual(try ThumbnailSize.parse("300x200"), ThumbnailSize(width: 300, height: 200))
        XCTAssertEqual(try ThumbnailSize.parse("300X200").name, "300x200")
        XCTAssertEqual(try ThumbnailSize.parseList("256,1024").map(\.name), ["256", "1024"])
    }

    func testRejectsMalformedSizes() {
        for bad in ["", "0", "-5", "abc", "10x", "x10", "1x2x3", "99999", "256,"] {
            XCTAssertThrowsError(try ThumbnailSize.parseList(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("invalid size"), "\(error)")
            }
        }
    }

    func testLayoutMapsOriginalsToThumbnailsAndBack() throws {
        let size = ThumbnailSize(width: 256, height: 256)
        let path = ThumbnailLayout.path(forOriginal: "originals/2024/05/01/IMG 1.jpg", size: size, format: .webp)
        XCTAssertEqual(path, "thumbnails/256/2024/05/01/IMG 1.jpg.webp")
        let parsed = try XCTUnwrap(ThumbnailLayout.parse(thumbnail: path!))
        XCTAssertEqual(parsed.original, "originals/2024/05/01/IMG 1.jpg")
        XCTAssertEqual(parsed.size, "256")
        XCTAssertEqual(parsed.format, .webp)
        XCTAssertNil(ThumbnailLayout.path(forOriginal: "originals/../etc/passwd", size: size, format: .jpeg))
        XCTAssertNil(ThumbnailLayout.path(forOriginal: "elsewhere/a.jpg", size: size, format: .jpeg))
        XCTAssertNil(ThumbnailLayout.parse(thumbnail: "thumbnails/CACHEDIR.TAG"))
    }
}

final class ThumbnailRendererShrinkTests: XCTestCase {
    func testJPEGShrinkKeepsAtLeastTheNeededPixels() {
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 256.0 / 4000, width: 4000, height: 3000), 8)
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 1024.0 / 4000, width: 4000, height: 3000), 2, "1/4 would give 1000 < 1024 pixels")
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 0.25, width: 4000, height: 3000), 4)
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 0.2, width: 4000, height: 3000), 4)
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 0.6, width: 4000, height: 3000), 1)
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 1, width: 4000, height: 3000), 1)
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 256.0 / 5000, width: 3, height: 5000), 2, "a 3-pixel side allows 2 at most")
        XCTAssertEqual(ThumbnailRenderer.jpegShrink(for: 256.0 / 5000, width: 5000, height: 1), 1)
    }

    func testTimestampsAreISO8601UTC() {
        XCTAssertEqual(Timestamp.iso8601(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp.iso8601(1_714_558_830), "2024-05-01T10:20:30Z")
    }
}
