import Foundation

/// The photos taken on one day ("2024-05-01"), or those with no date.
public struct GallerySection: Sendable, Equatable {
    /// "2024-05-01", or nil for the undated photos.
    public var day: String?
    public var items: [GalleryItem]

    public init(day: String?, items: [GalleryItem]) {
        self.day = day
        self.items = items
    }

    public var title: String { day ?? "Undated" }

    /// The anchor of the day's section on its page ("d2024-05-01", "undated").
    public var anchor: String { day.map { "d" + $0 } ?? "undated" }

    /// "Wednesday 1 May 2024".
    public var longTitle: String {
        guard let day, let date = GalleryCalendar.date(day) else { return title }
        return "\(GalleryCalendar.weekday(date)) \(date.day) \(GalleryCalendar.monthName(date.month)) \(date.year)"
    }

    /// Consecutive items of one day each, in the order given.
    static func byDay(_ items: [GalleryItem]) -> [GallerySection] {
        var sections: [GallerySection] = []
        for item in items {
            let day = day(of: item.original.takenAt)
            if let last = sections.last, last.day == day {
                sections[sections.count - 1].items.append(item)
            } else {
                sections.append(GallerySection(day: day, items: [item]))
            }
        }
        return sections
    }

    /// The day of an EXIF-style date "YYYY:MM:DD HH:MM:SS" (or ISO "YYYY-MM-DD…").
    public static func day(of takenAt: String?) -> String? {
        guard let takenAt else { return nil }
        var bytes = Array(takenAt.utf8.prefix(10))
        guard bytes.count == 10 else { return nil }
        for index in [0, 1, 2, 3, 5, 6, 8, 9] where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { return nil }
        guard bytes[4] == UInt8(ascii: ":") || bytes[4] == UInt8(ascii: "-"), bytes[4] == bytes[7] else { return nil }
        bytes[4] = UInt8(ascii: "-")
        bytes[7] = UInt8(ascii: "-")
        let text = String(decoding: bytes, as: UTF8.self)
        return text == "0000-00-00" ? nil : text
    }
}
