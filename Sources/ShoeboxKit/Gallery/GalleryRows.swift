import Foundation

/// Justified rows, decided when the page is written: for each band of screen widths, where
/// the rows of a day's pictures end, chosen (as Knuth–Plass breaks lines) so that every row
/// is as close as it can be to the band's row height. The page marks those ends with
/// breakers that only that band's media query shows; inside a row each picture grows in
/// proportion to its aspect from nothing, so a row fills the width exactly at one height
/// whatever the screen's width within the band, and no script is needed. The last row is
/// not stretched: a filler takes the room it would need past the band's row height.
/// (Breaking lines in the browser instead, as flex-wrap does, leaves a row half empty
/// whenever the next picture is too wide to join it, a square before a panorama on a phone.)
struct GalleryRows {
    /// A band of viewport widths (up to `maxViewport` CSS pixels, the last without a bound),
    /// laid out for rows of `rowHeight` at `nominalWidth` of content.
    struct Band {
        var maxViewport: Int?
        var nominalWidth: Double
        var rowHeight: Double
        /// The sum of aspects that fills a row at the band's row height.
        var rowAspect: Double { nominalWidth / rowHeight }
    }

    static let bands: [Band] = [
        Band(maxViewport: 480, nominalWidth: 374, rowHeight: 125),
        Band(maxViewport: 800, nominalWidth: 624, rowHeight: 160),
        Band(maxViewport: 1280, nominalWidth: 1008, rowHeight: 200),
        Band(maxViewport: 1920, nominalWidth: 1568, rowHeight: 240),
        Band(maxViewport: nil, nominalWidth: 2528, rowHeight: 300),
    ]
    /// The gap between pictures, in CSS pixels (`.rows` in `GalleryAssets.style`).
    static let gap = 4.0
    /// The most pictures a row may hold.
    static let longestRow = 24

    /// Per band, the indices of the pictures that end a row (the last picture excluded).
    let ends: [[Int]]
    /// Per band, the sum of the last row's aspects the filler makes up to the band's (0 if none).
    let fill: [Double]
    /// Per picture and band, the sum of the aspects of the pictures of its row that grow with
    /// the width at the band's widest (those drawn at their largest thumbnail's width do not;
    /// the filler does): a picture's share of the viewport's width is at most its aspect over this.
    let rowAspects: [[Double]]

    /// `aspects` of the pictures' cells and the most CSS pixels each may be drawn wide (its
    /// largest thumbnail's width), in page order.
    init(aspects: [Double], maxWidths: [Double]) {
        var ends: [[Int]] = [], fill: [Double] = [], rowAspects = Array(repeating: [Double](), count: aspects.count)
        for band in Self.bands {
            // A picture that stops growing at the band's height counts only as wide as it gets.
            let effective = zip(aspects, maxWidths).map { min($0, $1 / band.rowHeight) }
            let rows = Self.rows(effective, band: band)
            var lastFill = 0.0
            for (number, row) in rows.enumerated() {
                var filler = 0.0
                if number == rows.count - 1 {
                    lastFill = max(0, band.rowAspect - row.reduce(0.0) { $0 + effective[$1] })
                    filler = lastFill
                }
                let growing = Self.growingAspect(row.map { (aspects[$0], maxWidths[$0]) }, filler: filler,
                                                 width: Double(band.maxViewport ?? 3840))
                for index in row { rowAspects[index].append(growing) }
            }
            ends.append(rows.dropLast().compactMap(\.last))
            fill.append(lastFill)
        }
        self.ends = ends
        self.fill = fill
        self.rowAspects = rowAspects
    }

    /// The sum of the aspects of a row's pictures that are not held at their widest when the
    /// row is `width` wide (found by holding the widest-for-their-aspect until none is left over).
    static func growingAspect(_ row: [(aspect: Double, maxWidth: Double)], filler: Double, width: Double) -> Double {
        var held = Array(repeating: false, count: row.count)
        while true {
            var heldWidth = 0.0, growing = filler
            for (index, cell) in row.enumerated() {
                if held[index] { heldWidth += cell.maxWidth } else { growing += cell.aspect }
            }
            guard growing > 0 else { return row.reduce(filler) { $0 + $1.aspect } }
            let height = (width - gap * Double(row.count - 1) - heldWidth) / growing
            var changed = false
            for (index, cell) in row.enumerated() where !held[index] && cell.aspect * height > cell.maxWidth {
                held[index] = true
                changed = true
            }
            if !changed { return growing }
        }
    }

    /// The rows of one band: the breaks whose rows' heights stray least from the band's
    /// height (the sum of the squared logarithms of their ratios); the last row costs nothing
    /// when it is shorter than a full row, since it is shown at the band's height.
    static func rows(_ aspects: [Double], band: Band) -> [[Int]] {
        let count = aspects.count
        guard count > 0 else { return [] }
        var best = Array(repeating: Double.infinity, count: count + 1), from = Array(repeating: 0, count: count + 1)
        best[0] = 0
        for end in 1...count {
            var sum = 0.0
            for start in stride(from: end - 1, through: max(0, end - longestRow), by: -1) {
                sum += aspects[start]
                let width = band.nominalWidth - gap * Double(end - start - 1)
                let height = width / sum
                let cost = end == count && height >= band.rowHeight ? 0 : pow(log(height / band.rowHeight), 2)
                if best[start] + cost < best[end] {
                    best[end] = best[start] + cost
                    from[end] = start
                }
            }
        }
        var rows: [[Int]] = [], end = count
        while end > 0 {
            rows.append(Array(from[end]..<end))
            end = from[end]
        }
        return rows.reversed()
    }

    /// The breakers' and filler's rules: each band's breakers shown, and its filler's grow set,
    /// only within its widths.
    static var style: String {
        var css = ""
        var lower: Int?
        for (number, band) in bands.enumerated() {
            var range: String
            switch (lower, band.maxViewport) {
            case let (nil, upper?): range = "(width <= \(upper)px)"
            case let (low?, upper?): range = "(\(low)px < width <= \(upper)px)"
            case let (low?, nil): range = "(width > \(low)px)"
            case (nil, nil): range = "all"
            }
            css += "@media \(range){.rows .b\(number){display:block}.rows .f{--f:var(--f\(number))}}\n"
            lower = band.maxViewport
        }
        return css
    }
}
