import CShim
import Foundation

/// What an original's header says about the memory decoding it takes: read
/// before any pixel is decoded, so that an image too costly for the memory
/// budget is refused without being attempted.
public struct ThumbnailDecodeHeader: Sendable, Equatable {
    /// Size as stored (before EXIF orientation).
    public var width: Int
    public var height: Int
    public var bands: Int
    /// Bytes per band of a decoded pixel: 1 for 8-bit, 2 for 16-bit.
    public var bytesPerSample: Int
    /// libvips' loader: "jpegload", "pngload", "tiffload", "webpload", "heifload"...
    public var loader: String
    /// An interlaced PNG or GIF, or a progressive (multi-scan) JPEG.
    public var interlaced: Bool
    /// JPEG chroma subsampling as libvips names it ("4:2:0", "4:4:4"), or "".
    public var chromaSubsample: String
    /// The size of the file.
    public var fileBytes: Int64

    public init(width: Int, height: Int, bands: Int, bytesPerSample: Int, loader: String, interlaced: Bool,
                chromaSubsample: String = "", fileBytes: Int64 = 0) {
        self.width = width
        self.height = height
        self.bands = bands
        self.bytesPerSample = bytesPerSample
        self.loader = loader
        self.interlaced = interlaced
        self.chromaSubsample = chromaSubsample
        self.fileBytes = fileBytes
    }

    /// From a header-opened libvips image.
    init(image: OpaquePointer, fileBytes: Int64) {
        var info = shim_vips_header()
        shim_vips_header_info(image, &info)
        self.init(width: Int(info.width), height: Int(info.height), bands: Int(info.bands),
                  bytesPerSample: Int(info.bytes_per_sample), loader: Self.text(info.loader), interlaced: info.interlaced != 0,
                  chromaSubsample: Self.text(info.chroma_subsample), fileBytes: fileBytes)
    }

    /// Reads the header of the file at `path` (no pixels decoded); nil when libvips cannot.
    public static func read(path: String) -> ThumbnailDecodeHeader? {
        guard (try? VipsRuntime.start()) != nil else { return nil }
        guard let image = shim_vips_open_header(path) else {
            _ = VipsRuntime.takeError()
            return nil
        }
        defer { shim_vips_unref(image) }
        var info = stat()
        return ThumbnailDecodeHeader(image: image, fileBytes: stat(path, &info) == 0 ? Int64(info.st_size) : 0)
    }

    /// A NUL-terminated C array imported as a tuple.
    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
