import CShim
import Foundation

/// Makes a set of thumbnails of one image from a single decode: the largest is
/// made with shrink-on-load, the smaller ones are derived from it in memory.
/// The pixel count is checked from the header first (decompression bombs), then
/// the memory the decode takes is estimated and reserved from the run's budget.
struct ThumbnailRenderer {
    let options: ThumbnailOptions
    let libraryRoot: String
    let budget: ThumbnailMemoryBudget
    /// Above this many pixels the shared decode is not kept in memory: each size
    /// is then streamed from the file on its own, so memory stays bounded.
    static let sharedDecodeLimit = 16_000_000

    /// What the header says about an original.
    struct Source {
        let file: String
        let name: String
        /// Upright size (EXIF orientation applied).
        let width: Int
        let height: Int
        let hasICC: Bool
        let isJPEG: Bool
        let header: ThumbnailDecodeHeader
    }

    /// Writes every target for the original at `original` (relative path).
    /// `file`: where the original's bytes are read from, when not at its place in the library
    /// (a local copy of an object).
    func render(original: String, file: String? = nil, targets: [ThumbnailTarget]) throws -> [RenderedThumbnail] {
        let path = file ?? libraryRoot + "/" + original
        guard FileManager.default.fileExists(atPath: path) else { throw ThumbnailError.originalMissing(original) }
        if FormatSniffer.sniff(fileAt: path)?.isRaw == true {
            return try renderRaw(path, name: original, targets: targets)
        }
        let source = try inspect(path, name: original)
        let scales = targets.map { scale(for: $0.size, of: source) }
        let largest = scales.max() ?? 1
        let sharedPixels = Double(source.width) * largest * Double(source.height) * largest
        let shared = targets.count > 1 && sharedPixels <= Double(Self.sharedDecodeLimit)
        let cost = ThumbnailMemoryEstimate.estimate(source.header, scale: largest, keptPixels: shared ? Int(sharedPixels.rounded(.up)) : 0)
        guard cost.bytes <= budget.total else {
            throw ThumbnailError.overMemoryBudget(path: original, width: source.header.width, height: source.header.height,
                                                  estimate: cost.bytes, budget: budget.total, reason: cost.reason)
        }
        try budget.reserve(cost.bytes)
        defer {
            // The decode's buffers are freed by now: hand them back to the system before the budget.
            VipsRuntime.releaseFreedMemory()
            budget.release(cost.bytes)
        }
        guard shared, let primary = scales.indices.max(by: { scales[$0] < scales[$1] }) else {
            return try targets.map { try renderAlone(source, target: $0) }
        }
        return try renderShared(source, targets: targets, primary: primary, scale: scales[primary])
    }

    /// Reads the header only; refuses images over --max-pixels.
    private func inspect(_ file: String, name: String) throws -> Source {
        guard FileManager.default.fileExists(atPath: file) else { throw ThumbnailError.originalMissing(name) }
        guard let header = shim_vips_open_header(file) else {
            throw ThumbnailError.unreadable(path: name, reason: VipsRuntime.takeError())
        }
        defer { shim_vips_unref(header) }
        let width = Int(shim_vips_width(header)), height = Int(shim_vips_height(header))
        if width * height > options.maxPixels {
            throw ThumbnailError.tooManyPixels(path: name, width: width, height: height, limit: options.maxPixels)
        }
        let swap = shim_vips_orientation_swap(header) != 0
        var info = stat()
        let facts = ThumbnailDecodeHeader(image: header, fileBytes: stat(file, &info) == 0 ? Int64(info.st_size) : 0)
        return Source(file: file, name: name, width: swap ? height : width, height: swap ? width : height,
                      hasICC: shim_vips_has_icc(header) != 0, isJPEG: shim_vips_is_jpeg(header) != 0, header: facts)
    }

    /// The scale the original needs for `size` (at most 1: never enlarge).
    private func scale(for size: ThumbnailSize, of source: Source) -> Double {
        scale(for: size, width: source.width, height: source.height)
    }

    private func scale(for size: ThumbnailSize, width: Int, height: Int) -> Double {
        let horizontal = Double(size.width) / Double(max(width, 1))
        let vertical = Double(size.height) / Double(max(height, 1))
        let needed = options.fit == .inside ? min(horizontal, vertical) : max(horizontal, vertical)
        return min(needed, 1)
    }

    /// The largest JPEG DCT scale-down (8, 4, 2 or 1) that still leaves at
    /// least the pixels needed for `scale`, and at least a pixel on each side:
    /// libvips aborts the process on a 3×5000 strip shrunk by 4 ("bad dimensions").
    static func jpegShrink(for scale: Double, width: Int, height: Int) -> Int32 {
        for shrink in [8, 4, 2] where Double(shrink) * scale <= 1.0 + 1e-9 && shrink <= min(width, height) {
            return Int32(shrink)
        }
        return 1
    }

    private func renderAlone(_ source: Source, target: ThumbnailTarget) throws -> RenderedThumbnail {
        let start = DispatchTime.now()
        let image = try decode(source, width: target.size.width, height: target.size.height, crop: options.fit.cropMode,
                               scale: scale(for: target.size, of: source))
        defer { shim_vips_unref(image) }
        return try save(image, of: source.name, to: target, since: start)
    }

    private func renderShared(_ source: Source, targets: [ThumbnailTarget], primary: Int, scale: Double) throws
        -> [RenderedThumbnail] {
        let start = DispatchTime.now()
        let primaryIsExact = options.fit == .inside
        let boxWidth = primaryIsExact ? targets[primary].size.width : Int((Double(source.width) * scale).rounded(.up))
        let boxHeight = primaryIsExact ? targets[primary].size.height : Int((Double(source.height) * scale).rounded(.up))
        let decoded = try decode(source, width: boxWidth, height: boxHeight, crop: 0, scale: scale)
        defer { shim_vips_unref(decoded) }
        guard let shared = shim_vips_copy_memory(decoded) else {
            throw ThumbnailError.decodeFailed(path: source.name, reason: VipsRuntime.takeError())
        }
        defer { shim_vips_unref(shared) }
        var results: [RenderedThumbnail] = []
        for (index, target) in targets.enumerated() {
            if index == primary && primaryIsExact {
                results.append(try save(shared, of: source.name, to: target, since: start))
                continue
            }
            let itemStart = index == primary ? start : DispatchTime.now()
            var derived: OpaquePointer?
            guard shim_vips_thumbnail_derived(shared, &derived, Int32(target.size.width), Int32(target.size.height),
                                              options.fit.cropMode) == 0, let derived else {
                throw ThumbnailError.decodeFailed(path: source.name, reason: VipsRuntime.takeError())
            }
            defer { shim_vips_unref(derived) }
            results.append(try save(derived, of: source.name, to: target, since: itemStart))
        }
        return results
    }

    /// A camera raw, through LibRaw (libvips cannot decode raws here): its embedded preview
    /// or a half-size decode made once, upright, from which every size is derived.
    private func renderRaw(_ file: String, name: String, targets: [ThumbnailTarget]) throws -> [RenderedThumbnail] {
        let start = DispatchTime.now()
        let raw = try RawThumbnailDecoder(file: file, name: name, maxMemory: budget.total)
        let width = Int(raw.info.width), height = Int(raw.info.height)
        guard width > 0, height > 0 else {
            throw ThumbnailError.unreadable(path: name, reason: "LibRaw found no image size in it")
        }
        if width * height > options.maxPixels {
            throw ThumbnailError.tooManyPixels(path: name, width: width, height: height, limit: options.maxPixels)
        }
        let upright = raw.uprightSize
        let largest = targets.map { scale(for: $0.size, width: upright.width, height: upright.height) }.max() ?? 1
        let longestSide = Int((Double(max(upright.width, upright.height)) * largest).rounded(.up))
        let plan = raw.plan(longestSide: longestSide)
        let cost = raw.estimate(plan, keptPixels: 0)
        guard cost.bytes <= budget.total else {
            throw ThumbnailError.overMemoryBudget(path: name, width: width, height: height, estimate: cost.bytes,
                                                  budget: budget.total, reason: cost.reason)
        }
        // The other way is a fallback only when the budget can hold it too, and is then reserved with the first.
        let other = raw.alternative(to: plan).map { raw.estimate($0, keptPixels: 0).bytes }
        let fallback = other.map { $0 <= budget.total } ?? false
        let reserved = fallback ? max(cost.bytes, other ?? 0) : cost.bytes
        try budget.reserve(reserved)
        defer {
            VipsRuntime.releaseFreedMemory()
            budget.release(reserved)
        }
        let base = try raw.upright(plan, longestSide: longestSide, reserved: reserved, fallback: fallback)
        defer { shim_vips_unref(base) }
        var results: [RenderedThumbnail] = []
        for (index, target) in targets.enumerated() {
            let itemStart = index == 0 ? start : DispatchTime.now()
            var derived: OpaquePointer?
            guard shim_vips_thumbnail_derived(base, &derived, Int32(target.size.width), Int32(target.size.height),
                                              options.fit.cropMode) == 0, let derived else {
                throw ThumbnailError.decodeFailed(path: name, reason: VipsRuntime.takeError())
            }
            defer { shim_vips_unref(derived) }
            var saveable: OpaquePointer?
            guard shim_vips_to_srgb8(derived, &saveable, options.format == .jpeg ? 1 : 0) == 0, let saveable else {
                throw ThumbnailError.decodeFailed(path: name, reason: VipsRuntime.takeError())
            }
            defer { shim_vips_unref(saveable) }
            results.append(try save(saveable, of: name, to: target, since: itemStart))
        }
        return results
    }

    /// Shrink-on-load decode into upright, saveable 8-bit sRGB (a lazy pipeline).
    /// JPEGs are decoded at the smallest DCT scale that keeps enough pixels for
    /// `scale`; other formats go through libvips' own shrink-on-load.
    private func decode(_ source: Source, width: Int, height: Int, crop: Int32, scale: Double) throws
        -> OpaquePointer {
        var thumbnail: OpaquePointer?
        let icc: Int32 = source.hasICC ? 1 : 0
        let status = source.isJPEG
            ? shim_vips_thumbnail_jpeg(source.file, &thumbnail, Int32(width), Int32(height), crop, icc,
                                       Self.jpegShrink(for: scale, width: source.width, height: source.height))
            : shim_vips_thumbnail_srgb(source.file, &thumbnail, Int32(width), Int32(height), crop, icc)
        guard status == 0, let thumbnail else {
            throw ThumbnailError.decodeFailed(path: source.name, reason: VipsRuntime.takeError())
        }
        defer { shim_vips_unref(thumbnail) }
        var saveable: OpaquePointer?
        guard shim_vips_to_srgb8(thumbnail, &saveable, options.format == .jpeg ? 1 : 0) == 0, let saveable else {
            throw ThumbnailError.decodeFailed(path: source.name, reason: VipsRuntime.takeError())
        }
        return saveable
    }

    /// Whether the file system holding `folder` has no block left (for this user, or at all).
    static func isFull(_ folder: String) -> Bool {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return false }
        return info.f_bavail == 0 || info.f_bfree == 0
    }

    /// Encodes to a temporary file beside the target, then renames it into place.
    private func save(
        _ image: OpaquePointer, of original: String, to target: ThumbnailTarget, since start: DispatchTime
    ) throws -> RenderedThumbnail {
        let path = libraryRoot + "/" + target.path
        let folder = FolderPath.containing(path)
        do {
            try AtomicFileWriter.createFolders(folder)
        } catch let error as POSIXFileError {
            throw error.isDiskFull ? ThumbnailError.diskFull(path: error.path)
                : ThumbnailError.saveFailed(path: error.path, reason: String(cString: strerror(error.code)))
        }
        let temporary = folder + "/" + ThumbnailLayout.temporaryPrefix + UUID().uuidString + "." + options.format.fileExtension
        let quality = Int32(options.quality), keep: Int32 = options.keepMetadata ? 1 : 0
        let status: Int32
        switch options.format {
        case .jpeg: status = shim_vips_jpegsave(image, temporary, quality, keep)
        case .webp: status = shim_vips_webpsave(image, temporary, quality, keep)
        case .avif: status = shim_vips_avifsave(image, temporary, quality, keep)
        }
        guard status == 0 else {
            let reason = VipsRuntime.takeError()
            // libvips' savers say "write error --- out of disk space?" at best: ask the file system,
            // before the partial file is removed (which frees its blocks).
            let full = Self.isFull(folder)
            unlink(temporary)
            if full { throw ThumbnailError.diskFull(path: target.path) }
            throw ThumbnailError.renderFailed(original: original, thumbnail: target.path, reason: reason)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            if code == ENOSPC || code == EDQUOT { throw ThumbnailError.diskFull(path: target.path) }
            throw ThumbnailError.saveFailed(path: target.path, reason: String(cString: strerror(code)))
        }
        var info = stat()
        let bytes = stat(path, &info) == 0 ? Int64(info.st_size) : 0
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
        return RenderedThumbnail(target: target, width: Int(shim_vips_width(image)),
                                 height: Int(shim_vips_height(image)), bytes: bytes, milliseconds: elapsed)
    }
}
