import Foundation

/// What `shoebox thumbs` makes and how.
public struct ThumbnailOptions: Sendable {
    public var sizes: [ThumbnailSize]
    public var format: ThumbnailFormat
    /// Encoder quality 1...100.
    public var quality: Int
    public var fit: ThumbnailFit
    /// Keep EXIF/XMP/ICC in thumbnails (GPS included); off by default.
    public var keepMetadata: Bool
    /// Remake thumbnails even when they are newer than their original.
    public var force: Bool
    /// Images declaring more pixels than this are refused before decoding.
    public var maxPixels: Int
    /// Originals processed at once.
    public var jobs: Int
    /// Bytes every decode of a run may hold together (estimated from the headers);
    /// a decode estimated above it is refused, never attempted.
    public var maxMemory: Int64

    /// Everything besides the size that decides a thumbnail's pixels and metadata; a
    /// thumbnail made with other settings is remade. The last word names the renderer's
    /// revision: "r2" strips WebP metadata, which "r1" (libvips 8.14's webpsave) kept.
    public var settings: String {
        "\(format.rawValue) q\(quality) \(fit.rawValue) \(keepMetadata ? "keep-metadata" : "stripped") r2"
    }

    /// Whether thumbnails made with `settings` kept the original's metadata (GPS included).
    public static func keepsMetadata(settings: String?) -> Bool {
        settings?.split(separator: " ").contains("keep-metadata") ?? false
    }

    public static let defaultSizes = [ThumbnailSize(width: 256, height: 256), ThumbnailSize(width: 1024, height: 1024)]
    public static let defaultMaxPixels = 250_000_000
    public static let defaultMaxMemory: Int64 = 512 << 20

    public init(
        sizes: [ThumbnailSize] = ThumbnailOptions.defaultSizes, format: ThumbnailFormat = .jpeg, quality: Int = 80,
        fit: ThumbnailFit = .inside, keepMetadata: Bool = false, force: Bool = false,
        maxPixels: Int = ThumbnailOptions.defaultMaxPixels, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
        maxMemory: Int64 = ThumbnailOptions.defaultMaxMemory
    ) {
        var unique: [ThumbnailSize] = []
        for size in sizes where !unique.contains(size) { unique.append(size) }
        self.sizes = unique
        self.format = format
        self.quality = quality
        self.fit = fit
        self.keepMetadata = keepMetadata
        self.force = force
        self.maxPixels = maxPixels
        self.jobs = max(1, jobs)
        self.maxMemory = max(1, maxMemory)
    }
}
