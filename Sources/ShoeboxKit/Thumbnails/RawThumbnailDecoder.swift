import CShim
import Foundation

/// A camera raw file (CR2, NEF, ARW, DNG, RAF, CR3, ...) read by LibRaw for
/// thumbnails, which libvips cannot decode here. The embedded preview the
/// camera wrote is used when it has the pixels the largest thumbnail needs (or
/// is about full size); otherwise the sensor data is decoded at half size, and
/// the preview is the fallback when that fails. Either way the result is an
/// upright (by the raw's own orientation, which previews do not carry) 8-bit
/// sRGB image in memory, with no metadata: nothing of the raw's EXIF or GPS.
///
/// LibRaw runs in a child process for each step (shim_raw_run): Debian's LibRaw
/// 0.20 writes past a heap buffer on some damaged previews (found by the
/// RawThumbnail fuzz target), and a raw comes from anywhere. A crash, a hang or
/// a memory blow-up there costs one thumbnail, never this process.
public final class RawThumbnailDecoder {
    /// What the raw's headers say, as LibRaw read them.
    let info: shim_raw_info
    let name: String
    /// Where LibRaw reads from.
    private enum Input {
        case file(String)
        case bytes([UInt8])
    }
    private let input: Input
    private let maxMemory: Int64
    private let fileBytes: Int64
    /// How long one LibRaw step may take before it is stopped (hostile files).
    let decodeSeconds: Double

    /// Reads the headers of `file` (the original called `name` in messages); LibRaw may
    /// allocate at most `maxMemory` bytes for it.
    convenience init(file: String, name: String, maxMemory: Int64, decodeSeconds: Double = 60) throws {
        var status = stat()
        let size = stat(file, &status) == 0 ? Int64(status.st_size) : 0
        try self.init(input: .file(file), size: size, name: name, maxMemory: maxMemory, decodeSeconds: decodeSeconds)
    }

    /// Reads the headers of a raw file's bytes, as `init(file:...)` does a file's.
    public convenience init(bytes: [UInt8], name: String, maxMemory: Int64, decodeSeconds: Double = 60) throws {
        try self.init(input: .bytes(bytes), size: Int64(bytes.count), name: name, maxMemory: maxMemory,
                      decodeSeconds: decodeSeconds)
    }

    private init(input: Input, size: Int64, name: String, maxMemory: Int64, decodeSeconds: Double) throws {
        self.input = input
        self.name = name
        self.maxMemory = maxMemory
        self.decodeSeconds = decodeSeconds
        fileBytes = size
        var info = shim_raw_info()
        var image = shim_raw_image()
        let reason = Self.run(input, job: SHIM_RAW_INFO, maxMemory: maxMemory, maxOutput: 0, seconds: decodeSeconds, info: &info,
                              image: &image)
        if let reason {
            throw ThumbnailError.unreadable(path: name, reason: reason)
        }
        self.info = info
    }

    /// Runs one LibRaw step in a child process; nil on success, else why it failed.
    private static func run(_ input: Input, job: shim_raw_job, maxMemory: Int64, maxOutput: Int64, seconds: Double,
                            info: inout shim_raw_info, image: inout shim_raw_image) -> String? {
        var error = [CChar](repeating: 0, count: 320)
        let megabytes = Int32(clamping: max(maxMemory >> 20, 64))
        let status: Int32
        switch input {
        case .file(let path):
            status = shim_raw_run(path, nil, 0, job, megabytes, seconds, maxOutput, &info, &image, &error, error.count)
        case .bytes(let bytes):
            status = bytes.withUnsafeBytes {
                shim_raw_run(nil, $0.baseAddress, $0.count, job, megabytes, seconds, maxOutput, &info, &image, &error, error.count)
            }
        }
        guard status != 0 else { return nil }
        return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The upright size of the image thumbnails of at most `longestSide` pixels are made from
    /// (the preview or the half-size decode, as `plan` chooses): it runs the whole decode.
    public func uprightImageSize(longestSide: Int) throws -> (width: Int, height: Int) {
        try VipsRuntime.start()
        let image = try upright(plan(longestSide: longestSide), longestSide: longestSide, reserved: maxMemory, fallback: true)
        defer { shim_vips_unref(image) }
        return (Int(shim_vips_width(image)), Int(shim_vips_height(image)))
    }

    /// The size the image comes out at, upright.
    var uprightSize: (width: Int, height: Int) {
        let turned = info.orientation == 6 || info.orientation == 8
        let width = Int(info.width), height = Int(info.height)
        return turned ? (height, width) : (width, height)
    }

    /// The way the pixels will be made for a largest thumbnail of `longestSide` pixels.
    enum Plan: Equatable {
        /// The embedded preview, decoded at a DCT scale of 1/shrink (when a JPEG).
        case preview(shrink: Int)
        case halfDecode
    }

    /// Preview when it has the pixels `longestSide` needs, or is at least half the image's size
    /// (a half-size decode would add nothing); also when its size is not stated (checked once
    /// decoded). A half-size decode otherwise, and whenever there is no preview.
    func plan(longestSide: Int) -> Plan {
        guard info.preview_bytes > 0 else { return .halfDecode }
        let previewLongest = Int(max(info.preview_width, info.preview_height))
        guard previewLongest > 0 else { return .preview(shrink: 1) }
        let imageLongest = Int(max(info.width, info.height))
        guard previewLongest >= longestSide || previewLongest * 2 >= imageLongest else { return .halfDecode }
        let scale = min(1, Double(longestSide) / Double(previewLongest))
        return .preview(shrink: Int(ThumbnailRenderer.jpegShrink(for: scale, width: Int(info.preview_width),
                                                                 height: Int(info.preview_height))))
    }

    /// What carrying out `plan` is expected to take in memory at its peak.
    func estimate(_ plan: Plan, keptPixels: Int) -> ThumbnailMemoryEstimate {
        switch plan {
        case .preview(let shrink):
            return .rawPreview(width: Int(info.preview_width), height: Int(info.preview_height), bytes: info.preview_bytes,
                               shrink: shrink, keptPixels: keptPixels)
        case .halfDecode:
            return .rawHalfDecode(rawWidth: Int(info.raw_width), rawHeight: Int(info.raw_height), width: Int(info.width),
                                  height: Int(info.height), keptPixels: keptPixels)
        }
    }

    /// The upright image for thumbnails of at most `longestSide` pixels, made as `plan` says within
    /// `reserved` bytes, falling back (when `fallback`: the caller reserved for both ways) to the
    /// other way when that fails or (a preview of unstated size) falls short. A libvips image the
    /// caller unreferences.
    func upright(_ plan: Plan, longestSide: Int, reserved: Int64, fallback: Bool) throws -> OpaquePointer {
        switch plan {
        case .halfDecode:
            do {
                return try decodeHalf()
            } catch let decodeError {
                guard fallback, info.preview_bytes > 0, let preview = try? preview(shrink: 1, reserved: reserved) else {
                    throw decodeError
                }
                return preview
            }
        case .preview(let shrink):
            let image: OpaquePointer
            do {
                image = try preview(shrink: shrink, reserved: reserved)
            } catch let previewError {
                guard fallback, let decoded = try? decodeHalf() else { throw previewError }
                return decoded
            }
            let longest = Int(max(shim_vips_width(image), shim_vips_height(image)))
            let imageLongest = Int(max(info.width, info.height))
            if fallback, info.preview_width == 0, longest < longestSide, longest * 2 < imageLongest, let decoded = try? decodeHalf() {
                shim_vips_unref(image)
                return decoded
            }
            return image
        }
    }

    /// The other way of making the pixels than `plan`, for the fallback's memory.
    func alternative(to plan: Plan) -> Plan? {
        switch plan {
        case .preview: return .halfDecode
        case .halfDecode: return info.preview_bytes > 0 ? .preview(shrink: 1) : nil
        }
    }

    private func preview(shrink: Int, reserved: Int64) throws -> OpaquePointer {
        var made = shim_raw_image()
        var again = shim_raw_info()
        // The preview as stored (plus the EXIF header LibRaw puts before a JPEG), or its pixels.
        let stated = max(info.preview_bytes, Int64(info.preview_width) * Int64(info.preview_height) * 3)
        let maxOutput = min(maxMemory, stated + (1 << 20))
        if let reason = Self.run(input, job: SHIM_RAW_PREVIEW, maxMemory: maxMemory, maxOutput: maxOutput, seconds: decodeSeconds,
                                 info: &again, image: &made) {
            throw ThumbnailError.decodeFailed(path: name, reason: reason)
        }
        defer { shim_raw_image_free(&made) }
        // Its JPEG header may claim far more than the raw's headers state: two 8-bit RGB copies
        // of what it decodes to must fit in what was reserved.
        let maxPixels = max(min(reserved, maxMemory) / 6, 1)
        guard let image = shim_vips_from_raw(&made, Int32(shrink), info.orientation, maxPixels) else {
            throw ThumbnailError.decodeFailed(path: name, reason: "its preview: " + VipsRuntime.takeError())
        }
        return image
    }

    /// The fewest bytes that can hold the sensor data: one bit a photosite, far below what any
    /// camera's compression (lossy DNG included, some 2-3 bits) reaches. LibRaw does not notice
    /// every truncated file (a Panasonic RW2 cut to 12 KB decodes to stripes): this does.
    var leastSensorBytes: Int64 { Int64(info.raw_width) * Int64(info.raw_height) / 8 }

    private func decodeHalf() throws -> OpaquePointer {
        if fileBytes < leastSensorBytes {
            throw ThumbnailError.decodeFailed(path: name, reason: "the file is \(fileBytes) bytes, too short to hold "
                + "\(info.raw_width)x\(info.raw_height) photosites: it is truncated")
        }
        var made = shim_raw_image()
        var again = shim_raw_info()
        // Half the image's size each way, 3 bands: what LibRaw makes, and all the child may send.
        let halfWidth = Int(info.width) / 2 + 1, halfHeight = Int(info.height) / 2 + 1
        let maxOutput = Int64(halfWidth) * Int64(halfHeight) * 3
        if let reason = Self.run(input, job: SHIM_RAW_HALF, maxMemory: maxMemory, maxOutput: maxOutput, seconds: decodeSeconds,
                                 info: &again, image: &made) {
            throw ThumbnailError.decodeFailed(path: name, reason: reason)
        }
        defer { shim_raw_image_free(&made) }
        let size = (Int(made.width), Int(made.height))
        guard (size.0 <= halfWidth && size.1 <= halfHeight) || (size.0 <= halfHeight && size.1 <= halfWidth) else {
            throw ThumbnailError.decodeFailed(path: name, reason: "LibRaw's decode is \(size.0)x\(size.1), not half of "
                + "\(info.width)x\(info.height)")
        }
        // LibRaw's output is upright already.
        guard let image = shim_vips_from_raw(&made, 1, 1, Int64.max) else {
            throw ThumbnailError.decodeFailed(path: name, reason: VipsRuntime.takeError())
        }
        return image
    }
}
