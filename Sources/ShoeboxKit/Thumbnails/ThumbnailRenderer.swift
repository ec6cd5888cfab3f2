import CShim
import CVips
import Foundation

/// Makes a set of thumbnails of one image from a single decode: the largest is
/// made through libvips' shrink-on-load thumbnail, the smaller ones are derived
/// from it in memory. The pixel count is checked from the header first.
struct ThumbnailRenderer {
    let options: ThumbnailOptions
    let libraryRoot: String
    /// Above this many pixels the shared decode is not kept in memory: each size
    /// is then streamed from the file on its own, so memory stays bounded.
    static let sharedDecodeLimit = 16_000_000

    /// Writes every target for the original at `original` (relative path).
    func render(original: String, targets: [ThumbnailTarget]) throws -> [RenderedThumbnail] {
        let file = libraryRoot + "/" + original
        let (width, height, hasICC) = try inspect(file, name: original)
        let scales = targets.map { scale(for: $0.size, width: width, height: height) }
        guard targets.count > 1, let primary = scales.indices.max(by: { scales[$0] < scales[$1] }) else {
            return try targets.map { try renderAlone(file: file, name: original, target: $0, hasICC: hasICC) }
        }
        let sharedScale = scales[primary]
        let sharedPixels = Double(width) * sharedScale * Double(height) * sharedScale
        if sharedPixels > Double(Self.sharedDecodeLimit) {
            return try targets.map { try renderAlone(file: file, name: original, target: $0, hasICC: hasICC) }
        }
        return try renderShared(file: file, name: original, targets: targets, primary: primary,
                                width: width, height: height, scale: sharedScale, hasICC: hasICC)
    }

    /// Width and height once upright, and whether an ICC profile is embedded;
    /// refuses images over --max-pixels.
    private func inspect(_ file: String, name: String) throws -> (Int, Int, Bool) {
        guard FileManager.default.fileExists(atPath: file) else { throw ThumbnailError.originalMissing(name) }
        guard let header = shim_vips_open_header(file) else {
            throw ThumbnailError.unreadable(path: name, reason: VipsRuntime.takeError())
        }
        defer { shim_vips_unref(header) }
        let width = Int(vips_image_get_width(header)), height = Int(vips_image_get_height(header))
        if width * height > options.maxPixels {
            throw ThumbnailError.tooManyPixels(path: name, width: width, height: height, limit: options.maxPixels)
        }
        let hasICC = shim_vips_has_icc(header) != 0
        let swap = vips_image_get_orientation_swap(header) != 0
        return swap ? (height, width, hasICC) : (width, height, hasICC)
    }

    /// The scale the original needs for `size` (at most 1: never enlarge).
    private func scale(for size: ThumbnailSize, width: Int, height: Int) -> Double {
        let horizontal = Double(size.width) / Double(width), vertical = Double(size.height) / Double(height)
        let needed = options.fit == .inside ? min(horizontal, vertical) : max(horizontal, vertical)
        return min(needed, 1)
    }

    private func renderAlone(file: String, name: String, target: ThumbnailTarget, hasICC: Bool) throws -> RenderedThumbnail {
        let start = DispatchTime.now()
        let image = try decode(file: file, name: name, width: target.size.width, height: target.size.height,
                               crop: options.fit.cropMode, hasICC: hasICC)
        defer { shim_vips_unref(image) }
        return try save(image, of: name, to: target, since: start)
    }

    private func renderShared(
        file: String, name: String, targets: [ThumbnailTarget], primary: Int, width: Int, height: Int, scale: Double, hasICC: Bool
    ) throws -> [RenderedThumbnail] {
        let start = DispatchTime.now()
        let primaryIsExact = options.fit == .inside
        let boxWidth = primaryIsExact ? targets[primary].size.width : Int((Double(width) * scale).rounded(.up))
        let boxHeight = primaryIsExact ? targets[primary].size.height : Int((Double(height) * scale).rounded(.up))
        let decoded = try decode(file: file, name: name, width: boxWidth, height: boxHeight, crop: 0, hasICC: hasICC)
        defer { shim_vips_unref(decoded) }
        guard let shared = vips_image_copy_memory(decoded) else {
            throw ThumbnailError.decodeFailed(path: name, reason: VipsRuntime.takeError())
        }
        defer { shim_vips_unref(shared) }
        var results: [RenderedThumbnail] = []
        for (index, target) in targets.enumerated() {
            if index == primary && primaryIsExact {
                results.append(try save(shared, of: name, to: target, since: start))
                continue
            }
            let itemStart = index == primary ? start : DispatchTime.now()
            var derived: UnsafeMutablePointer<VipsImage>?
            guard shim_vips_thumbnail_derived(shared, &derived, Int32(target.size.width), Int32(target.size.height),
                                              options.fit.cropMode) == 0, let derived else {
                throw ThumbnailError.decodeFailed(path: name, reason: VipsRuntime.takeError())
            }
            defer { shim_vips_unref(derived) }
            results.append(try save(derived, of: name, to: target, since: itemStart))
        }
        return results
    }

    /// Shrink-on-load decode into upright, saveable 8-bit sRGB (a lazy pipeline).
    private func decode(file: String, name: String, width: Int, height: Int, crop: Int32, hasICC: Bool) throws
        -> UnsafeMutablePointer<VipsImage> {
        var thumbnail: UnsafeMutablePointer<VipsImage>?
        guard shim_vips_thumbnail_srgb(file, &thumbnail, Int32(width), Int32(height), crop, hasICC ? 1 : 0) == 0,
              let thumbnail else {
            throw ThumbnailError.decodeFailed(path: name, reason: VipsRuntime.takeError())
        }
        defer { shim_vips_unref(thumbnail) }
        var saveable: UnsafeMutablePointer<VipsImage>?
        guard shim_vips_to_srgb8(thumbnail, &saveable, options.format == .jpeg ? 1 : 0) == 0, let saveable else {
            throw ThumbnailError.decodeFailed(path: name, reason: VipsRuntime.takeError())
        }
        return saveable
    }

    /// Encodes to a temporary file beside the target, then renames it into place.
    private func save(
        _ image: UnsafeMutablePointer<VipsImage>, of original: String, to target: ThumbnailTarget, since start: DispatchTime
    ) throws -> RenderedThumbnail {
        let path = libraryRoot + "/" + target.path
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ThumbnailError.saveFailed(path: folder, reason: "\(error.localizedDescription)")
        }
        let temporary = folder + "/.tmp-" + UUID().uuidString + "." + options.format.fileExtension
        let quality = Int32(options.quality), keep: Int32 = options.keepMetadata ? 1 : 0
        let status: Int32
        switch options.format {
        case .jpeg: status = shim_vips_jpegsave(image, temporary, quality, keep)
        case .webp: status = shim_vips_webpsave(image, temporary, quality, keep)
        case .avif: status = shim_vips_avifsave(image, temporary, quality, keep)
        }
        guard status == 0 else {
            let reason = VipsRuntime.takeError()
            unlink(temporary)
            throw ThumbnailError.renderFailed(original: original, thumbnail: target.path, reason: reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ThumbnailError.saveFailed(path: target.path, reason: reason)
        }
        var info = stat()
        let bytes = stat(path, &info) == 0 ? Int64(info.st_size) : 0
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
        return RenderedThumbnail(target: target, width: Int(vips_image_get_width(image)),
                                 height: Int(vips_image_get_height(image)), bytes: bytes, milliseconds: elapsed)
    }
}
