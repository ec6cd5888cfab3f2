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

    /// The day of an EXIF-style date "YYYY:MM:DD HH:MM:SS" (or ISO "YYYY-MM-DD…").
    public static func day(of takenAt: String?) -> String? {
        guard let takenAt, takenAt.count >= 10 else { return nil }
        let scalars = Array(takenAt.prefix(10).unicodeScalars)
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard digits.allSatisfy({ scalars[$0].properties.numericType != nil && scalars[$0].isASCII }),
              [":", "-"].contains(scalars[4]), scalars[4] == scalars[7] else { return nil }
        let text = String(takenAt.prefix(10)).replacingOccurrences(of: ":", with: "-")
        guard text != "0000-00-00" else { return nil }
        return text
    }
}
