import Foundation

/// One photo on the gallery page: its original and the thumbnails to show it with.
public struct GalleryItem: Sendable, Equatable {
    public var original: OriginalRecord
    /// Thumbnails of one format, narrowest first, one per width.
    public var thumbnails: [ThumbnailRecord]
    /// False when the original's file is missing: the page shows the thumbnail without a link.
    public var originalExists: Bool
    /// The URLs the original was fetched from (as shown: without query, fragment or user).
    public var sources: [String] = []

    public init(original: OriginalRecord, thumbnails: [ThumbnailRecord], originalExists: Bool = true) {
        self.original = original
        self.thumbnails = thumbnails
        self.originalExists = originalExists
    }

    /// The name of the photo's own page (photos/ID.html) and its anchor on its month's page:
    /// the start of the original's SHA-256, so a link to it lasts as long as the photo does.
    public var id: String { String(original.sha256.prefix(16)) }

    /// Width over height of the picture as the thumbnails show it (upright).
    public var aspect: Double {
        guard let largest = thumbnails.last, largest.width > 0, largest.height > 0 else { return 1 }
        return Double(largest.width) / Double(largest.height)
    }

    /// The aspect of the picture's cell in a row: panoramas and strips are kept within
    /// 1:2 and 3:1 and shown whole inside it (a 25 x 256 strip would fill a screen).
    public var cellAspect: Double { min(max(aspect, 0.5), 3) }

    /// Why the capture date is not the camera's, when it is not: for the mark on the
    /// picture ("server date") and the photo's page.
    public var dateCaveat: (short: String, long: String)? {
        guard original.takenAt != nil, let source = original.datedBy, !source.isCamera else { return nil }
        switch source {
        case .exif, .makerNotes, .xmp, .iptc, .rawHeader: return nil
        case .lastModified: return ("server date", "from the server's Last-Modified header, not the camera")
        case .fetchTime: return ("download date", "the day it was downloaded: the file names no capture time")
        case .fileTime: return ("file date", "the file's modification time: the file names no capture time")
        }
    }

    /// A URL as the gallery shows it: scheme, host and path only. A query string may carry a
    /// signature or token (S3 presigned links, CDN tokens) that a page someone publishes must not.
    public static func shownSource(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else {
            return String(url.prefix { $0 != "?" && $0 != "#" })
        }
        parts.query = nil
        parts.fragment = nil
        parts.user = nil
        parts.password = nil
        return parts.string ?? String(url.prefix { $0 != "?" && $0 != "#" })
    }

    /// "Make Model", without repeating the make when the model starts with it or with
    /// its first word ("NIKON CORPORATION" + "NIKON D850" is "NIKON D850").
    public var camera: String? {
        let make = original.make.map(Self.trimmed)?.nonEmpty
        let model = original.model.map(Self.trimmed)?.nonEmpty
        guard let model else { return make }
        guard let make else { return model }
        let brand = make.split(separator: " ").first.map(String.init) ?? make
        return model.lowercased().hasPrefix(brand.lowercased()) ? model : make + " " + model
    }

    /// `text` without spaces and tabs at either end (Foundation's trimming only when there are some).
    private static func trimmed(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last else { return text }
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        return blank(first) || blank(last) ? text.trimmingCharacters(in: .whitespaces) : text
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
        if let source = original.datedBy, !source.isCamera { return date }
        let time = taken.utf8.dropFirst(11).prefix(5)
        return time.count == 5 && time.contains(UInt8(ascii: ":")) ? date + " " + String(decoding: time, as: UTF8.self) : date
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
