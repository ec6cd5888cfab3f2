import Foundation

/// One page of photos (a month, a sparse year, the undated ones, or a part of one): the days
/// in capture order, each a set of justified rows, every picture at its own aspect ratio and
/// never wider than its largest thumbnail. Plain HTML; `gallery.js` adds the photo view.
/// Every value from the catalog is HTML-escaped and every path percent-encoded.
public struct GalleryPage {
    public var page: GalleryPlan.Page
    /// Days of the whole period (all its parts), with the page name each is on.
    public var periodDays: [(anchor: String, title: String, page: String)]
    public var previous: GalleryPlan.Page?
    public var next: GalleryPlan.Page?
    /// From this page's folder (months/) to the library root: "../../", "../".
    public var libraryPrefix: String
    public var showGPS: Bool
    public var title: String
    /// False when the originals are in an object store that the page cannot reach.
    public var linksOriginals = true

    public init(page: GalleryPlan.Page, periodDays: [(anchor: String, title: String, page: String)],
                previous: GalleryPlan.Page?, next: GalleryPlan.Page?, libraryPrefix: String, showGPS: Bool, title: String) {
        self.page = page
        self.periodDays = periodDays
        self.previous = previous
        self.next = next
        self.libraryPrefix = libraryPrefix
        self.showGPS = showGPS
        self.title = title
    }

    public func html() -> String {
        var html = GalleryHTML.head(title: page.title + " · " + title, assets: "../")
        html += "<header>\n<nav class=\"crumbs\" aria-label=\"Gallery\"><a href=\"../index.html\">"
            + GalleryHTML.escape(title) + "</a> › " + GalleryHTML.escape(page.periodTitle) + "</nav>\n"
        html += "<h1>\(GalleryHTML.escape(page.title))</h1>\n<p>\(GalleryHTML.count(page.photoCount, "photo"))</p>\n"
        html += pager()
        if periodDays.count > 1 {
            html += "<nav class=\"days\" aria-label=\"Days\"><ul>"
            for day in periodDays {
                let href = (day.page == page.name ? "" : GalleryHTML.escape(RelativeLink.encode(day.page + ".html"))) + "#" + day.anchor
                html += "<li><a href=\"\(href)\">\(GalleryHTML.escape(day.title))</a></li>"
            }
            html += "</ul></nav>\n"
        }
        html += "</header>\n<main>\n"
        for section in page.sections {
            html += "<section id=\"\(section.anchor)\" aria-labelledby=\"h-\(section.anchor)\">\n"
                + "<h2 id=\"h-\(section.anchor)\">\(GalleryHTML.escape(section.longTitle))</h2>\n<div class=\"rows\">\n"
            html += rows(section.items.filter { !$0.thumbnails.isEmpty })
            html += "</div>\n</section>\n"
        }
        html += "</main>\n<footer>\(pager())</footer>\n"
        html += "<script src=\"../gallery.js\" defer></script>\n</body>\n</html>\n"
        return html
    }

    private func pager() -> String {
        var links: [String] = []
        if let previous {
            links.append("<a rel=\"prev\" href=\"\(GalleryHTML.escape(RelativeLink.encode(previous.name + ".html")))\">← \(GalleryHTML.escape(previous.title))</a>")
        }
        links.append("<a rel=\"up\" href=\"../index.html\">All months</a>")
        if let next {
            links.append("<a rel=\"next\" href=\"\(GalleryHTML.escape(RelativeLink.encode(next.name + ".html")))\">\(GalleryHTML.escape(next.title)) →</a>")
        }
        return "<nav class=\"pager\" aria-label=\"Pages\">" + links.joined(separator: " ") + "</nav>\n"
    }

    private func link(_ path: String) -> String {
        GalleryHTML.escape(libraryPrefix + RelativeLink.encode(path))
    }

    /// A day's pictures in justified rows (see `GalleryRows`): after a picture that ends a row
    /// in some bands of screen widths, a breaker shown only in those; at the end, the filler
    /// that keeps the last row at the band's height.
    private func rows(_ items: [GalleryItem]) -> String {
        let layout = GalleryRows(aspects: items.map(\.cellAspect), maxWidths: items.map { Double($0.thumbnails.last?.width ?? 1) })
        var breakers = [Int: [Int]]()
        for (band, ends) in layout.ends.enumerated() {
            for index in ends { breakers[index, default: []].append(band) }
        }
        var html = ""
        for (index, item) in items.enumerated() {
            html += tile(item, rowAspects: layout.rowAspects[index])
            if let bands = breakers[index] {
                html += "<i class=\"b" + bands.map { " b\($0)" }.joined() + "\"></i>\n"
            }
        }
        let fill = layout.fill.enumerated().map { "--f\($0.offset):" + PrintfText.double("%.3f", $0.element) }
        return html + "<i class=\"f\" style=\"\(fill.joined(separator: ";"))\"></i>\n"
    }

    /// The `sizes` of a picture: in each band of screen widths, its share of the viewport's
    /// width (its aspect over its row's), a little more than its cell (padding and gaps).
    static func sizes(aspect: Double, rowAspects: [Double]) -> String {
        zip(GalleryRows.bands, rowAspects).map { band, rowAspect in
            // In tenths of a per cent of the viewport's width, rounded up.
            let tenths = Int(min(1000, (1000 * aspect / rowAspect).rounded(.up)))
            let share = "\(tenths / 10)" + (tenths % 10 == 0 ? "" : ".\(tenths % 10)") + "vw"
            return band.maxViewport.map { "(max-width:\($0)px) " + share } ?? share
        }.joined(separator: ",")
    }

    /// One picture in a row: a link to its page (gallery.js opens it in place), carrying what the
    /// in-page view shows; the thumbnail sized by srcset/sizes to cover the cell at the screen's density.
    private func tile(_ item: GalleryItem, rowAspects: [Double]) -> String {
        guard let smallest = item.thumbnails.first, let largest = item.thumbnails.last else { return "" }
        let srcset = item.thumbnails.map { "\(link($0.path)) \($0.width)w" }.joined(separator: ", ")
        let aspect = PrintfText.double("%.4f", item.cellAspect)
        var data = " data-full=\"\(link(largest.path))\" data-fw=\"\(largest.width)\" data-fh=\"\(largest.height)\""
            + " data-info=\"\(GalleryHTML.escape(GalleryPhotoPage.summary(item, showGPS: showGPS)))\""
        if item.originalExists && linksOriginals {
            data += " data-original=\"\(link(item.original.path))\"" + (item.browserShowsOriginal ? "" : " data-download")
        }
        var html = "<a class=\"ph\" id=\"p\(item.id)\" href=\"../photos/\(item.id).html\" style=\"--a:\(aspect);--w:\(largest.width)px\"\(data)>"
            + "<img src=\"\(link(smallest.path))\" srcset=\"\(srcset)\" sizes=\"\(Self.sizes(aspect: item.cellAspect, rowAspects: rowAspects))\""
            + " width=\"\(smallest.width)\" height=\"\(smallest.height)\" loading=\"lazy\" decoding=\"async\""
            + " alt=\"\(GalleryHTML.escape(item.altText))\">"
        if let caveat = item.dateCaveat {
            html += "<span class=\"est\" title=\"Dated \(GalleryHTML.escape(caveat.long))\">\(caveat.short)</span>"
        }
        if !item.originalExists { html += "<span class=\"est missing\">original missing</span>" }
        return html + "</a>\n"
    }
}
