/// How the gallery's photos are spread over pages: one page per month, one per year for a
/// sparse year, one for the undated photos; a page longer than `photosPerPage` is cut into
/// parts. So any one page stays bounded however large the library is.
public struct GalleryPlan: Sendable {
    /// At most this many photos on one page (its HTML stays under about 400 KB).
    public static let photosPerPage = 400
    /// A year with at most this many photos gets one page rather than a page per month.
    public static let sparseYear = 60

    /// One page of photos.
    public struct Page: Sendable, Equatable {
        /// File name without ".html": "2024-05", "2019", "undated", "2024-05-2" for a second part.
        public var name: String
        /// The period it shows: "2024-05", "2019" or "undated"; shared by the parts of one period.
        public var period: String
        /// "May 2024", "2019", "Undated".
        public var periodTitle: String
        /// 1-based part within its period, and how many parts the period has.
        public var part: Int
        public var parts: Int
        public var sections: [GallerySection]

        public var title: String { parts > 1 ? "\(periodTitle) (part \(part) of \(parts))" : periodTitle }
        public var photoCount: Int { sections.reduce(0) { $0 + $1.items.count } }
        /// The year the period belongs to, nil for the undated photos.
        public var year: String? { period == "undated" ? nil : String(period.prefix(4)) }
        /// Whether the page shows a month ("2024-05") rather than a year or the undated photos.
        public var isMonth: Bool { period != "undated" && period.count == 7 }
    }

    /// Oldest period first, the undated photos last.
    public var pages: [Page]

    /// `items` in the order to show them (GalleryBuilder.items: oldest first, undated last).
    public init(items: [GalleryItem]) {
        var yearCounts: [String: Int] = [:]
        for item in items {
            if let day = GallerySection.day(of: item.original.takenAt) { yearCounts[String(day.prefix(4)), default: 0] += 1 }
        }
        func period(of item: GalleryItem) -> String {
            guard let day = GallerySection.day(of: item.original.takenAt) else { return "undated" }
            let year = String(day.prefix(4))
            return yearCounts[year, default: 0] <= Self.sparseYear ? year : String(day.prefix(7))
        }
        var periods: [(period: String, items: [GalleryItem])] = []
        for item in items {
            let key = period(of: item)
            if let last = periods.last, last.period == key {
                periods[periods.count - 1].items.append(item)
            } else {
                periods.append((key, [item]))
            }
        }
        pages = periods.flatMap { period, items -> [Page] in
            let title = period == "undated" ? "Undated" : period.count == 7 ? GalleryCalendar.monthTitle(period) : period
            let chunks = stride(from: 0, to: items.count, by: Self.photosPerPage).map {
                Array(items[$0..<min($0 + Self.photosPerPage, items.count)])
            }
            return chunks.enumerated().map { index, chunk in
                Page(name: index == 0 ? period : "\(period)-\(index + 1)", period: period, periodTitle: title,
                     part: index + 1, parts: chunks.count, sections: GallerySection.byDay(chunk))
            }
        }
    }

    /// The page each photo is on, by photo id.
    public func pageNames() -> [String: String] {
        var names: [String: String] = [:]
        for page in pages {
            for section in page.sections { for item in section.items { names[item.id] = page.name } }
        }
        return names
    }
}
