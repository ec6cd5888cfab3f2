import XCTest
@testable import ShoeboxKit

/// Rows broken when the page is written: every band's rows stay near its height, a picture too
/// wide to follow the row before joins it rather than leaving it half empty, and `sizes` never
/// promises less than a picture gets when small originals stop growing.
final class GalleryRowsTests: XCTestCase {
    private func rows(_ layout: GalleryRows, band: Int, count: Int) -> [[Int]] {
        var rows: [[Int]] = [], start = 0
        for end in layout.ends[band] + [count - 1] {
            rows.append(Array(start...end))
            start = end + 1
        }
        return rows
    }

    func testEveryRowButTheLastIsNearTheBandsHeight() {
        let aspects = (0..<97).map { [1.333, 0.75, 1.5, 1, 3, 0.667, 0.5][$0 % 7] }
        let layout = GalleryRows(aspects: aspects, maxWidths: Array(repeating: 4000, count: aspects.count))
        XCTAssertEqual(layout.ends.count, GalleryRows.bands.count)
        for (number, band) in GalleryRows.bands.enumerated() {
            let rows = rows(layout, band: number, count: aspects.count)
            XCTAssertEqual(rows.joined().map { $0 }, Array(0..<aspects.count), "every picture once, in order")
            for row in rows.dropLast() {
                let width = band.nominalWidth - GalleryRows.gap * Double(row.count - 1)
                let height = width / row.reduce(0) { $0 + aspects[$1] }
                XCTAssertGreaterThan(height, band.rowHeight * 0.7, "band \(number), row \(row)")
                XCTAssertLessThan(height, band.rowHeight * 1.45, "band \(number), row \(row)")
            }
            // The filler makes the last row up to a full row's aspect, so it stands at the band's height.
            let last = rows.last!.reduce(0) { $0 + aspects[$1] }
            XCTAssertEqual(layout.fill[number], max(0, band.rowAspect - last), accuracy: 1e-9)
        }
    }

    /// On a phone, a square before a 3:1 panorama: flex-wrap's greedy breaks (rows of 120 px
    /// at 359 px) left the square alone on a row at most 192 px wide; here it is never alone.
    func testASquareBeforeAPanoramaIsNotLeftAloneOnAPhone() {
        let aspects = [1.333, 0.75, 1.5, 1.333, 1, 3, 0.667, 1.333]
        let layout = GalleryRows(aspects: aspects, maxWidths: Array(repeating: 1024, count: aspects.count))
        let phone = rows(layout, band: 0, count: aspects.count)
        XCTAssertFalse(phone.contains([4]), "\(phone)")
        XCTAssertEqual(phone.joined().count, aspects.count)
    }

    /// Tiny originals stop at their largest thumbnail's width; the rest of their row grows
    /// instead, and `sizes` counts only the growing pictures.
    func testPicturesHeldAtTheirWidestLeaveTheirShareToTheOthers() {
        let row = [(aspect: 1.5, maxWidth: 1024.0), (aspect: 1.333, maxWidth: 40), (aspect: 1.5, maxWidth: 1024)]
        XCTAssertEqual(GalleryRows.growingAspect(row, filler: 0, width: 1000), 3, accuracy: 1e-9)
        XCTAssertEqual(GalleryRows.growingAspect(row, filler: 0.5, width: 1000), 3.5, accuracy: 1e-9)
        // Nothing held on a narrow screen: all three grow.
        XCTAssertEqual(GalleryRows.growingAspect(row, filler: 0, width: 100), 4.333, accuracy: 1e-9)
        // A row too wide for all its thumbnails: every picture held (their own aspects).
        let small = [(aspect: 1.0, maxWidth: 100.0), (aspect: 2.0, maxWidth: 200)]
        XCTAssertEqual(GalleryRows.growingAspect(small, filler: 0, width: 4000), 3, accuracy: 1e-9)
        // sizes: the share of the viewport, rounded up to a tenth of a per cent, per band.
        let sizes = GalleryPage.sizes(aspect: 1.5, rowAspects: [3, 4.5, 7, 1.4, 3.1])
        XCTAssertEqual(sizes, "(max-width:480px) 50vw,(max-width:800px) 33.4vw,(max-width:1280px) 21.5vw,(max-width:1920px) 100vw,48.4vw")
    }

    /// The style shows each band's breakers only within its widths, the bands adjoining.
    func testTheStyleCoversEveryWidthOnce() {
        let style = GalleryRows.style
        XCTAssertTrue(style.contains("@media (width <= 480px){.rows .b0{display:block}.rows .f{--f:var(--f0)}}"))
        XCTAssertTrue(style.contains("@media (480px < width <= 800px){.rows .b1{display:block}"))
        XCTAssertTrue(style.contains("@media (width > 1920px){.rows .b4{display:block}"))
        XCTAssertEqual(style.components(separatedBy: "@media").count - 1, GalleryRows.bands.count)
    }
}
