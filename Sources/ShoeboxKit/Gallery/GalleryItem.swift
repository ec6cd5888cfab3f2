import Foundation

/// One photo on the gallery page: its original and the thumbnails to show it with.
public struct GalleryItem: Sendable, Equatable {
    public var original: OriginalRecord
    /// Thumbnails of one format, narrowest first, one per width.
    public var thumbnails: [ThumbnailRecord]
    /// False when the original's file is missing: the page shows the thumbnail without a link.
    public var originalExists: Bool

    public init(original: OriginalRecord, thumbnails: [ThumbnailRecord], originalExists: Bool = true) {
        self.original = original
        self.thumbnails = thumbnails
        self.originalExists = originalExists
    }

    /// "Make Model", without repeating the make when the model starts with it or with
    /// its first word ("NIKON CORPORATION" + "NIKON D850" is "NIKON D850").
    public var camera: String? {
        let make = original.make?.trimmingCharacters(in: .whitespaces).nonEmpty
        let model = original.model?.trimmingCharacters(in: .whitespaces).nonEmpty
        guard let model else { return make }
        guard let make else { return model }
        let brand = make.split(separator: " ").first.map(String.init) ?? make
        return model.lowercased().hasPrefix(brand.lowercased()) ? model : make + " " + model
    }

    /// Media types every current browser shows in an `<img>` or as a page of its own; an
    /// original of another type (HEIC, TIFF, raw, JPEG XL, JPEG 2000) is downloaded when
    /// linked, so the page shows its largest thumbnail instead and offers the original apart.
    static let browserTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif"]

    /// Whether a browser shows the original itself (else it would download it).
    public var browserShowsOriginal: Bool {
        Self.browserTypes.contains(original.contentType.lowercased())
    }

    /// The text that stands for the photo where it cannot be seen: what is known of it
    /// ("Photo taken 2024-05-01 10:20 with Canon EOS R5"), else its file name.
    public var altText: String {
        guard camera != nil || dateText != nil else { return (original.path as NSString).lastPathComponent }
        var text = "Photo"
        if let date = dateText { text += " taken " + date }
        if let camera { text += " with " + camera }
        return text
    }

    /// The capture date and time shown in the caption, "2024-05-01 10:20"; only the day
    /// for a photo dated by a fallback (its download time is no time of day it was taken).
    public var dateText: String? {
        guard let date = GallerySection.day(of: original.takenAt), let taken = original.takenAt else { return nil }
        if let source = original.datedBy, source != .exif { return date }
        let time = taken.dropFirst(11).prefix(5)
        return time.count == 5 && time.contains(":") ? date + " " + time : date
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
