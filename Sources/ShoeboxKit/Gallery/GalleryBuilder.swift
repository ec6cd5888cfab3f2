/// Groups the library's originals and their thumbnails into dated sections:
/// newest day first, photos in capture order within a day, undated ones last.
public enum GalleryBuilder {
    /// Formats in order of preference when an original has thumbnails in several.
    static let formatPreference = ["jpeg", "webp", "avif"]

    /// Originals without a usable thumbnail (per `exists`) are left out. Without
    /// `allowMetadata`, thumbnails made with --keep-metadata (GPS inside) are not used.
    public static func sections(
        originals: [OriginalRecord], thumbnails: [ThumbnailRecord], allowMetadata: Bool, exists: (String) -> Bool
    ) -> [GallerySection] {
        let usable = thumbnails.filter {
            (allowMetadata || !ThumbnailOptions.keepsMetadata(settings: $0.settings)) && exists($0.path)
        }
        let bySHA = Dictionary(grouping: usable, by: \.originalSHA256)
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

    /// Thumbnails made alike (one format, fit and quality: one picture at several
    /// resolutions, as a srcset needs), narrowest first, one per width. Among sets, the
    /// preferred format wins, then the set with the most sizes.
    static func choose(_ thumbnails: [ThumbnailRecord]) -> [ThumbnailRecord]? {
        let sets = Dictionary(grouping: thumbnails) { $0.settings ?? $0.format }
        func rank(_ set: (key: String, value: [ThumbnailRecord])) -> (Int, Int, String) {
            let format = formatPreference.firstIndex(of: set.value[0].format) ?? formatPreference.count
            return (format, -Set(set.value.map(\.width)).count, set.key)
        }
        guard let best = sets.min(by: { rank($0) < rank($1) })?.value else { return nil }
        var seenWidths = Set<Int>()
        return best.sorted { ($0.width, $0.path) < ($1.width, $1.path) }
            .filter { seenWidths.insert($0.width).inserted }
    }
}
