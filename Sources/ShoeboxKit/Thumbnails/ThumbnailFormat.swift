/// The encoding of thumbnail files.
public enum ThumbnailFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, webp, avif

    /// Appended to the original's file name: "IMG_1.jpg" gives "IMG_1.jpg.webp".
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .webp: return "webp"
        case .avif: return "avif"
        }
    }

    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .webp: return "image/webp"
        case .avif: return "image/avif"
        }
    }

    /// The format whose file extension is `ext`, if any.
    public init?(fileExtension ext: String) {
        guard let format = Self.allCases.first(where: { $0.fileExtension == ext.lowercased() }) else { return nil }
        self = format
    }
}
