import Foundation

/// The gallery's front page (index.html): years newest first, each with its months (or the
/// year's one page) as links with counts and a cover picture; the undated photos; with --gps,
/// the overview map of where the photos were taken. Its size grows with the number of months,
/// not of photos.
public struct GalleryIndexPage {
    public var plan: GalleryPlan
    /// From the gallery folder to the library root.
    public var libraryPrefix: String
    public var title: String
    /// The map's file name beside the page, when there is one.
    public var map: (file: String, points: Int)?

    public init(plan: GalleryPlan, libraryPrefix: String, title: String) {
        self.plan = plan
        self.libraryPrefix = libraryPrefix
        self.title = title
    }

    /// One entry per period: its first page, its title, its photo count and cover.
    struct Entry {
        var page: GalleryPlan.Page
        var count: Int
    }

    private func entries() -> [(year: String?, entries: [Entry])] {
        var periods: [Entry] = []
        for page in plan.pages {
            if let last = periods.last, last.page.period == page.period {
                periods[periods.count - 1].count += page.photoCount
            } else {
                periods.append(Entry(page: page, count: page.photoCount))
            }
        }
        var years: [(year: String?, entries: [Entry])] = []
        for entry in periods.reversed() {
            if let last = years.last, last.year == entry.page.year {
                years[years.count - 1].entries.append(entry)
            } else {
                years.append((entry.page.year, [entry]))
            }
        }
        // The undated photos last, newest year first, months newest first within a year.
        return years.filter { $0.year != nil } + years.filter { $0.year == nil }
    }

    public func html() -> String {
        let total = plan.pages.reduce(0) { $0 + $1.photoCount }
        var html = GalleryHTML.head(title: title, assets: "")
        html += "<header>\n<h1>\(GalleryHTML.escape(title))</h1>\n<p>\(GalleryHTML.count(total, "photo"))"
        let years = plan.pages.compactMap(\.year)
        if let first = years.first, let last = years.last {
            html += first == last ? ", \(first)" : ", \(first) to \(last)"
        }
        html += "</p>\n</header>\n<main>\n"
        if total == 0 { html += "<p>No photos with thumbnails yet: run <code>shoebox thumbs</code>, then this again.</p>\n" }
        for (year, entries) in entries() {
            let heading = year ?? "Undated"
            let count = entries.reduce(0) { $0 + $1.count }
            let anchor = year.map { "y" + $0 } ?? "undated"
            html += "<section id=\"\(anchor)\" aria-labelledby=\"h-\(anchor)\">\n<h2 id=\"h-\(anchor)\">\(GalleryHTML.escape(heading))"
                + " <span class=\"n\">\(GalleryHTML.count(count, "photo"))</span></h2>\n<ul class=\"months\">\n"
            for entry in entries {
                let label = entry.page.isMonth
                    ? GalleryCalendar.monthName(Int(entry.page.period.suffix(2)) ?? 0) : entry.page.periodTitle
                html += "<li><a href=\"months/\(GalleryHTML.escape(RelativeLink.encode(entry.page.name + ".html")))\">"
                html += cover(entry.page)
                html += "<span class=\"label\">\(GalleryHTML.escape(label))</span> <span class=\"n\">\(GalleryHTML.count(entry.count, "photo"))</span></a></li>\n"
            }
            html += "</ul>\n</section>\n"
        }
        if let map {
            html += "<section id=\"map\" aria-labelledby=\"h-map\">\n<h2 id=\"h-map\">Where <span class=\"n\">"
                + "\(GalleryHTML.count(map.points, "photo")) with a position</span></h2>\n"
                + "<img class=\"map\" src=\"\(map.file)\" width=\"\(GalleryMap.width)\" height=\"\(GalleryMap.height)\""
                + " alt=\"World map with a dot for each place photos were taken\">\n</section>\n"
        }
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    /// The first photo of the period, drawn at most 160 x 120 (the smallest thumbnail that covers it).
    private func cover(_ page: GalleryPlan.Page) -> String {
        guard let item = page.sections.first?.items.first, let smallest = item.thumbnails.first else { return "" }
        let srcset = item.thumbnails.map {
            GalleryHTML.escape(libraryPrefix + RelativeLink.encode($0.path)) + " \($0.width)w"
        }.joined(separator: ", ")
        let width = min(160, Int((120 * item.aspect).rounded(.up)), item.thumbnails.last?.width ?? 160)
        return "<img src=\"\(GalleryHTML.escape(libraryPrefix + RelativeLink.encode(smallest.path)))\" srcset=\"\(srcset)\""
            + " sizes=\"\(width)px\" width=\"\(smallest.width)\" height=\"\(smallest.height)\" loading=\"lazy\" decoding=\"async\" alt=\"\">"
    }
}
