import Foundation

/// Every file of a gallery, made one at a time (so 100,000 photo pages are never all in memory):
/// gallery.css and gallery.js, a page per period (months/NAME.html), a page per photo
/// (photos/ID.html), map.svg with --gps, and index.html last, so a gallery cut short keeps
/// its previous front page.
struct GallerySite {
    var plan: GalleryPlan
    /// From the gallery folder to the library root ("../", "" for a bucket copy).
    var libraryPrefix: String
    var showGPS: Bool
    var title: String
    var linksOriginals: Bool

    /// What was made: pages of photos, photo pages, photos on the map.
    struct Counts: Sendable, Equatable {
        var pages = 0
        var photoPages = 0
        var mapPhotos = 0
    }

    /// Hands each file (path relative to the gallery folder, content) to `emit`.
    func generate(_ emit: (String, [UInt8]) throws -> Void) throws -> Counts {
        var counts = Counts()
        try emit("gallery.css", Array(GalleryAssets.style.utf8))
        try emit("gallery.js", Array(GalleryAssets.script.utf8))
        let inner = "../" + libraryPrefix
        var daysOfPeriod: [String: [(anchor: String, title: String, page: String)]] = [:]
        for page in plan.pages {
            for section in page.sections where daysOfPeriod[page.period]?.last?.anchor != section.anchor {
                let title = section.day.flatMap(GalleryCalendar.date).map {
                    !page.isMonth ? "\($0.day) \(GalleryCalendar.monthName($0.month).prefix(3))" : "\($0.day)"
                } ?? section.title
                daysOfPeriod[page.period, default: []].append((section.anchor, title, page.name))
            }
        }
        for (index, page) in plan.pages.enumerated() {
            var html = GalleryPage(page: page, periodDays: daysOfPeriod[page.period] ?? [],
                                   previous: index > 0 ? plan.pages[index - 1] : nil,
                                   next: index + 1 < plan.pages.count ? plan.pages[index + 1] : nil,
                                   libraryPrefix: inner, showGPS: showGPS, title: title)
            html.linksOriginals = linksOriginals
            try emit("months/" + page.name + ".html", Array(html.html().utf8))
            counts.pages += 1
        }
        // Every photo in order, with its page: positions only, the plan holds the photos.
        var ordered: [(page: Int, section: Int, item: Int)] = []
        for (p, page) in plan.pages.enumerated() {
            for (s, section) in page.sections.enumerated() { for i in section.items.indices { ordered.append((p, s, i)) } }
        }
        func item(_ index: Int) -> GalleryItem? {
            guard ordered.indices.contains(index) else { return nil }
            let at = ordered[index]
            return plan.pages[at.page].sections[at.section].items[at.item]
        }
        for index in ordered.indices {
            let page = plan.pages[ordered[index].page]
            let photo = item(index)!
            var html = GalleryPhotoPage(item: photo, pageName: page.name, pageTitle: page.title,
                                        previous: item(index - 1), next: item(index + 1),
                                        libraryPrefix: inner, showGPS: showGPS, title: title)
            html.linksOriginals = linksOriginals
            try emit("photos/" + photo.id + ".html", Array(html.html().utf8))
            counts.photoPages += 1
        }
        var index = GalleryIndexPage(plan: plan, libraryPrefix: libraryPrefix, title: title)
        if showGPS, let map = GalleryMap.svg(plan.pages.lazy.flatMap(\.sections).flatMap(\.items)) {
            try emit("map.svg", Array(map.svg.utf8))
            index.map = ("map.svg", map.photos)
            counts.mapPhotos = map.photos
        }
        try emit("index.html", Array(index.html().utf8))
        return counts
    }

    /// Whether `path` (relative to the gallery folder) is a file a gallery makes: only such
    /// files are removed when the photo or month they showed is gone.
    static func isGenerated(_ path: String) -> Bool {
        if ["index.html", "gallery.css", "gallery.js", "map.svg"].contains(path) { return true }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasSuffix(".html") else { return false }
        let name = parts[1].dropLast(5)
        switch parts[0] {
        case "photos": return name.count == 16 && name.allSatisfy(\.isHexDigit)
        case "months":
            return !name.isEmpty && name.count <= 12 && name.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-" || $0.isLetter) }
        default: return false
        }
    }
}
