/// Groups the library's originals and their thumbnails into dated sections:
/// newest day first, photos in capture order within a day, undated ones last.
public enum GalleryBuilder {
    /// Formats in order of preference when an original has thumbnails in several.
    static let formatPreference = ["jpeg", "webp", "avif"]

    /// Originals without a usable thumbnail (per `exists`) are left out.
    public static func sections(
        originals: [OriginalRecord], thumbnails: [ThumbnailRecord], exists: (String) -> Bool
    ) -> [GallerySection] {
        let bySHA = Dictionary(grouping: thumbnails.filter { exists($0.path) }, by: \.originalSHA256)
        var byDay: [String?: [GalleryItem]] = [:]
        for original in originals {
            guard let chosen = choose(bySHA[original.sha256] ?? []) else { continue }
            let item = GalleryItem(original: original, thumbnails: chosen, originalExists: exists(original.path))
            byDay[GallerySection.day(of: original.takenAt), default: []].append(item)
        }
        let days = byDay.keys.sorted { left, right in
            switch (left, right) {
            case let (l?, r?): return l > r
            case (.some, .none): return true
            default: return false
            }
        }
        return days.map { day in
            let items = byDay[day]!.sorted {
                ($0.original.takenAt ?? "", $0.original.path) < ($1.original.takenAt ?? "", $1.original.path)
            }
            return GallerySection(day: day, items: items)
        }
    }

    /// One format's thumbnails, narrowest first, one per width.
    static func choose(_ thumbnails: [ThumbnailRecord]) -> [ThumbnailRecord]? {
        let formats = Set(thumbnails.map(\.format))
        guard let format = formatPreference.first(where: formats.contains) ?? formats.sorted().first else { return nil }
        var seenWidths = Set<Int>()
        return thumbnails.filter { $0.format == format }
            .sorted { ($0.width, $0.path) < ($1.width, $1.path) }
            .filter { seenWidths.insert($0.width).inserted }
    }
}
