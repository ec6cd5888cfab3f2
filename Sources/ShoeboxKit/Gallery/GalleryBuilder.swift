/// Pairs the library's originals with the thumbnails to show them by, in capture order.
public enum GalleryBuilder {
    /// Formats in order of preference when an original has thumbnails in several.
    static let formatPreference = ["jpeg", "webp", "avif"]

    /// The photos to show, oldest first (capture time, then path), undated ones last.
    /// Originals without a usable thumbnail (per `exists`) are left out. Without
    /// `allowMetadata`, thumbnails made with --keep-metadata (GPS inside) are not used.
    /// `sources` are the fetched URLs of each original, by SHA-256.
    public static func items(
        originals: [OriginalRecord], thumbnails: [ThumbnailRecord], sources: [String: [String]] = [:],
        allowMetadata: Bool, exists: (String) -> Bool
    ) -> [GalleryItem] {
        items(streaming: { each in originals.forEach(each) },
              thumbnails: usable(thumbnails, allowMetadata: allowMetadata, exists: exists), sources: sources, exists: exists)
    }

    /// The thumbnails that may be shown, by original: those whose file exists, and without
    /// `allowMetadata` none made with --keep-metadata.
    static func usable(_ thumbnails: [ThumbnailRecord], allowMetadata: Bool, exists: (String) -> Bool) -> [String: [ThumbnailRecord]] {
        var bySHA: [String: [ThumbnailRecord]] = [:]
        for thumbnail in thumbnails
        where (allowMetadata || !ThumbnailOptions.keepsMetadata(settings: thumbnail.settings)) && exists(thumbnail.path) {
            bySHA[thumbnail.originalSHA256, default: []].append(thumbnail)
        }
        return bySHA
    }

    /// `items` over originals handed one at a time by `originals` (a catalog streaming its rows,
    /// so they are never all in memory at once); `leftOut` sees each original without a thumbnail.
    static func items(
        streaming originals: (_ each: (OriginalRecord) -> Void) throws -> Void, thumbnails bySHA: [String: [ThumbnailRecord]],
        sources: [String: [String]], exists: (String) -> Bool, leftOut: (OriginalRecord) -> Void = { _ in }
    ) rethrows -> [GalleryItem] {
        var dated: [(key: String, item: GalleryItem)] = [], undated: [GalleryItem] = []
        try withoutActuallyEscaping(exists) { exists in try withoutActuallyEscaping(leftOut) { leftOut in try originals { original in
            guard let chosen = choose(bySHA[original.sha256] ?? []) else {
                leftOut(original)
                return
            }
            var item = GalleryItem(original: original, thumbnails: chosen, originalExists: exists(original.path))
            item.sources = (sources[original.sha256] ?? []).map(GalleryItem.shownSource)
            if let day = GallerySection.day(of: original.takenAt) {
                // The day in ISO form, then the time as written: one key sorts both spellings.
                dated.append((day + String(original.takenAt!.dropFirst(10)), item))
            } else {
                undated.append(item)
            }
        } } }
        dated.sort { ($0.key, $0.item.original.path) < ($1.key, $1.item.original.path) }
        undated.sort { $0.original.path < $1.original.path }
        return dated.map(\.item) + undated
    }

    /// The photos grouped by day, newest day first, capture order within a day, undated last.
    public static func sections(
        originals: [OriginalRecord], thumbnails: [ThumbnailRecord], allowMetadata: Bool, exists: (String) -> Bool
    ) -> [GallerySection] {
        let all = items(originals: originals, thumbnails: thumbnails, allowMetadata: allowMetadata, exists: exists)
        return GallerySection.byDay(all).sorted { left, right in
            switch (left.day, right.day) {
            case let (l?, r?): return l > r
            case (.some, .none): return true
            default: return false
            }
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
