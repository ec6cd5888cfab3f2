import Foundation

/// Recognises an image format from the first bytes of a file (magic numbers).
public enum FormatSniffer {
    /// How many leading bytes `sniff` needs to decide.
    public static let prefixLength = 64

    /// The format of the file at `path` from its first bytes, and for a file that starts
    /// as a plain TIFF, from its IFD0 (DNG, NEF, ARW, PEF, SRW: see TIFFRawIdentifier);
    /// nil when it cannot be read. nil for anything but a regular file (FileByteSource
    /// opens with O_NONBLOCK: a FIFO would wait for a writer).
    public static func sniff(fileAt path: String) -> ImageFormat? {
        guard let source = try? FileByteSource(path: path), let prefix = try? source.bytes(at: 0, count: prefixLength),
              let format = sniff(prefix) else { return nil }
        guard format == .tiff else { return format }
        return TIFFRawIdentifier.identify(source) ?? .tiff
    }

    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        let b = Array(bytes.prefix(prefixLength))
        func at(_ offset: Int, _ magic: [UInt8]) -> Bool {
            offset + magic.count <= b.count && Array(b[offset..<offset + magic.count]) == magic
        }
        func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, ascii("GIF87a")) || at(0, ascii("GIF89a")) { return .gif }
        if at(0, ascii("RIFF")) && at(8, ascii("WEBP")) { return .webp }
        if at(4, ascii("ftyp")) { return isoMediaFormat(b) }
        if at(0, ascii("FUJIFILMCCD-RAW")) { return .raf }
        if at(0, [0x00, 0x4D, 0x52, 0x4D]) && at(8, [0x00, 0x50, 0x52, 0x44]) { return .mrw }  // "\0MRM", first block "\0PRD"
        if at(0, [0x49, 0x49, 0x2A, 0x00]) {
            return at(8, [0x43, 0x52, 0x02]) ? .cr2 : .tiff
        }
        if at(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if at(0, ascii("IIRO")) || at(0, ascii("IIRS")) || at(0, ascii("MMOR")) { return .orf }
        if at(0, [0x49, 0x49, 0x55, 0x00]) { return .rw2 }
        if at(0, [0xFF, 0x0A]) || at(0, [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .jxl
        }
        if at(0, ascii("BM")) && b.count >= 18 && isPlausibleBMP(b) { return .bmp }
        if KyoceraRawContainer.isKyoceraRaw(b) { return .kyoceraRaw }
        if CRWContainer.isCRW(b) { return .crw }
        if at(0, ascii("FOVb")) { return .x3f }
        if at(0, JP2Container.signature) { return .jp2 }
        return nil
    }

    /// ISO base media file (HEIF family, CR3): decided by the major and compatible brands.
    private static func isoMediaFormat(_ b: [UInt8]) -> ImageFormat? {
        guard b.count >= 12 else { return nil }
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        var brands: [String] = []
        var offset = 8
        let end = min(max(boxSize, 12), b.count)
        while offset + 4 <= end {
            brands.append(String(decoding: b[offset..<offset + 4], as: UTF8.self))
            offset += offset == 8 ? 8 : 4  // skip minor_version after the major brand
        }
        if brands.contains("crx ") { return .cr3 }
        if brands.contains(where: { ["avif", "avis"].contains($0) }) { return .avif }
        if brands.contains(where: { ["heic", "heix", "hevc", "hevx", "heim", "heis"].contains($0) }) { return .heic }
        if brands.contains(where: { ["mif1", "msf1"].contains($0) }) { return .heif }
        return nil
    }

    /// "BM" alone is too weak: also require a known DIB header size.
    private static func isPlausibleBMP(_ b: [UInt8]) -> Bool {
        let dibSize = Int(b[14]) | Int(b[15]) << 8 | Int(b[16]) << 16 | Int(b[17]) << 24
        return [12, 40, 52, 56, 64, 108, 124].contains(dibSize)
    }
}
