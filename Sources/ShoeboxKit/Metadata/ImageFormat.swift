/// An image container format, recognised by its MIME type or its first bytes.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, gif, webp, heic, heif, avif, tiff, bmp, jxl, jp2
    // Camera raw formats (most are TIFF-based).
    case dng, cr2, cr3, nef, arw, orf, rw2, raf, pef, srw, mrw, crw, x3f
    /// Kyocera (Contax N Digital) RAW, ".raw".
    case kyoceraRaw = "raw"

    /// The file extension used in the library.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .tiff: return "tif"
        default: return rawValue
        }
    }

    /// The media type of a library path, from the extension the archiver gave it
    /// (`application/octet-stream` for an extension no format uses).
    public static func mimeType(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        let ext = name[name.index(after: dot)...].lowercased()
        return allCases.first { $0.fileExtension == ext }?.mimeType ?? "application/octet-stream"
    }

    /// The canonical MIME type.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .gif: return "image/gif"
        case .webp: return "image/webp"
        case .heic: return "image/heic"
        case .heif: return "image/heif"
        case .avif: return "image/avif"
        case .tiff: return "image/tiff"
        case .bmp: return "image/bmp"
        case .jxl: return "image/jxl"
        case .jp2: return "image/jp2"
        case .dng: return "image/x-adobe-dng"
        case .cr2: return "image/x-canon-cr2"
        case .cr3: return "image/x-canon-cr3"
        case .nef: return "image/x-nikon-nef"
        case .arw: return "image/x-sony-arw"
        case .orf: return "image/x-olympus-orf"
        case .rw2: return "image/x-panasonic-rw2"
        case .raf: return "image/x-fuji-raf"
        case .pef: return "image/x-pentax-pef"
        case .srw: return "image/x-samsung-srw"
        case .mrw: return "image/x-minolta-mrw"
        case .crw: return "image/x-canon-crw"
        case .x3f: return "image/x-sigma-x3f"
        case .kyoceraRaw: return "image/x-kyocera-raw"
        }
    }

    /// Formats whose EXIF lives in a TIFF structure at the start of the file.
    public var isTIFFBased: Bool {
        switch self {
        case .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .srw: return true
        default: return false
        }
    }

    /// Camera raw formats: sniffing alone cannot tell most of them from plain TIFF.
    public var isRaw: Bool {
        switch self {
        case .dng, .cr2, .cr3, .nef, .arw, .orf, .rw2, .raf, .pef, .srw, .mrw, .crw, .x3f, .kyoceraRaw: return true
        default: return false
        }
    }
}
