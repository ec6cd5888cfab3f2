/// Decides a download's format from the server's Content-Type and the body's
/// first bytes: the bytes win; bytes that are no image are rejected.
public enum ContentTypeRules {
    public enum Decision: Equatable, Sendable {
        case accept(ImageFormat, warnings: [String])
        case reject(reason: String)
    }

    static let mimeTypes: [String: ImageFormat] = [
        "image/jpeg": .jpeg, "image/jpg": .jpeg, "image/pjpeg": .jpeg,
        "image/png": .png, "image/x-png": .png, "image/apng": .png,
        "image/gif": .gif, "image/webp": .webp,
        "image/heic": .heic, "image/heic-sequence": .heic,
        "image/heif": .heif, "image/heif-sequence": .heif,
        "image/avif": .avif, "image/avif-sequence": .avif,
        "image/tiff": .tiff, "image/tiff-fx": .tiff,
        "image/bmp": .bmp, "image/x-bmp": .bmp, "image/x-ms-bmp": .bmp,
        "image/jxl": .jxl, "image/jp2": .jp2, "image/jpx": .jp2,
        "image/x-adobe-dng": .dng, "image/dng": .dng,
        "image/x-canon-cr2": .cr2, "image/x-canon-cr3": .cr3,
        "image/x-nikon-nef": .nef, "image/x-sony-arw": .arw,
        "image/x-olympus-orf": .orf, "image/x-panasonic-rw2": .rw2, "image/x-panasonic-raw": .rw2,
        "image/x-fuji-raf": .raf, "image/x-pentax-pef": .pef, "image/x-samsung-srw": .srw,
        "image/x-minolta-mrw": .mrw, "image/x-kyocera-raw": .kyoceraRaw,
        "image/x-canon-crw": .crw, "image/x-sigma-x3f": .x3f,
    ]

    /// Types that say "some bytes" or "some image" without naming a format: the bytes decide, with no warning.
    static let genericTypes: Set<String> = ["application/octet-stream", "binary/octet-stream", "application/binary", "application/unknown", "image/*"]

    /// The media type without parameters, lower-cased ("Image/JPEG; q=1" → "image/jpeg").
    public static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        // Cut at the first ";" byte, not Character: a prepended mark (U+0600…) fuses with
        // the ";" into one grapheme, which a Character split would miss.
        let bare = String(decoding: contentType.utf8.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self)
        let trimmed = bare.trimmingWhitespace().lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The format a Content-Type names, if it names an image format Shoebox knows.
    public static func format(forContentType contentType: String?) -> ImageFormat? {
        mediaType(contentType).flatMap { mimeTypes[$0] }
    }

    /// A media type as a message shows it: a hostile server's 50 KB type is cut to 100 characters.
    private static func shown(_ media: String) -> String {
        media.count > 100 ? media.prefix(100) + "…" : media
    }

    /// `file`: the complete body, when it is on disk: a body that starts as a plain TIFF is
    /// then told apart from the raw formats built on TIFF (FormatSniffer.sniff(fileAt:)),
    /// so that a DNG sent as application/octet-stream or image/tiff is stored as .dng.
    public static func decide(contentType: String?, prefix: [UInt8], bodyBytes: Int64, file: String? = nil) -> Decision {
        guard bodyBytes > 0 else { return .reject(reason: "empty body") }
        let declared = format(forContentType: contentType)
        let fromPrefix = FormatSniffer.sniff(prefix)
        let fromFile = fromPrefix == .tiff ? file.flatMap(FormatSniffer.sniff(fileAt:)) : nil
        guard let sniffed = fromFile ?? fromPrefix else {
            let what = mediaType(contentType).map(shown) ?? "no Content-Type"
            return .reject(reason: "body is not an image (\(what); first bytes \(describe(prefix)))")
        }
        let media = mediaType(contentType)
        if media == nil || genericTypes.contains(media!) {
            return .accept(sniffed, warnings: [])
        }
        guard let declared else {
            return .accept(sniffed, warnings: ["content-type-mismatch: server said \(shown(media!)), bytes are \(sniffed.mimeType)"])
        }
        if declared == sniffed { return .accept(sniffed, warnings: []) }
        // Most raw formats are TIFF inside: the declared raw type is more precise than a
        // plain-TIFF sniff, and a raw format the bytes show is more precise than image/tiff.
        if declared.isRaw && sniffed == .tiff { return .accept(declared, warnings: []) }
        if declared == .tiff && sniffed.isRaw && sniffed.isTIFFBased { return .accept(sniffed, warnings: []) }
        if [.heic, .heif].contains(declared) && [.heic, .heif].contains(sniffed) { return .accept(sniffed, warnings: []) }
        return .accept(sniffed, warnings: ["content-type-mismatch: server said \(shown(media!)), bytes are \(sniffed.mimeType)"])
    }

    private static func describe(_ prefix: [UInt8]) -> String {
        if prefix.isEmpty { return "none" }
        let printable = prefix.prefix(16).map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "." }
        return "\"" + String(printable) + "\""
    }
}
