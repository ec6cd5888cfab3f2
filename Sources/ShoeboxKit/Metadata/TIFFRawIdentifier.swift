/// Tells which camera raw format a file that starts as a plain TIFF is, from its IFD0
/// (the first 64 bytes FormatSniffer sees cannot: IFD0's tags and the Make string lie
/// further in). Reads IFD0's entries and the Make value only, each bounded.
///
/// - DNG: the DNGVersion tag (0xC612) in IFD0, whatever the camera.
/// - NEF (Make NIKON…), ARW (SONY…), PEF (PENTAX…, RICOH IMAGING…), SRW (SAMSUNG…): the
///   camera's Make and a sign of raw data in IFD0: SubIFDs (0x014A), DNGPrivateData
///   (0xC634, where Sony and Pentax keep their own), or a Compression that is no TIFF
///   compression (Nikon's 34713, Sony's 32767, Pentax's 65535). A Make alone is not
///   enough: a TIFF exported from a raw file keeps the camera's Make.
///
/// CR2, ORF and RW2 have magic numbers of their own, in FormatSniffer.
enum TIFFRawIdentifier {
    static let dngVersion: UInt16 = 0xC612, make: UInt16 = 0x010F, subIFDs: UInt16 = 0x014A
    static let privateData: UInt16 = 0xC634, compression: UInt16 = 0x0103
    /// Compression values of TIFF 6 and its common extensions (LZW, JPEG, Deflate, PackBits,
    /// JBIG, JPEG 2000, ZSTD, WebP…): anything else in IFD0 is a raw encoding.
    static let tiffCompressions: Set<Int> = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 32773, 32946, 34661, 34712, 34887, 34925,
                                             34926, 34927, 50000, 50001, 50002]

    static func identify(_ source: ByteSource) -> ImageFormat? {
        guard let header = try? source.exactly(at: 0, count: 8) else { return nil }
        let little: Bool
        switch (header[0], header[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ b: [UInt8], _ at: Int) -> Int {
            little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
        }
        func u32(_ b: [UInt8], _ at: Int) -> Int {
            little ? u16(b, at) | u16(b, at + 2) << 16 : u16(b, at) << 16 | u16(b, at + 2)
        }
        guard u16(header, 2) == 42 else { return nil }
        let ifd = u32(header, 4)
        guard ifd >= 8, let countBytes = try? source.exactly(at: ifd, count: 2) else { return nil }
        let count = min(u16(countBytes, 0), TIFFStructure.maximumEntries)
        // Fewer entries when the file ends first (a damaged IFD: judge what is there).
        guard let entries = try? source.bytes(at: ifd + 2, count: count * 12), entries.count >= 12 else { return nil }
        var makeText: String?
        var rawSign = false
        for index in 0..<entries.count / 12 {
            let at = index * 12
            let tag = UInt16(u16(entries, at))
            let type = u16(entries, at + 2), valueCount = u32(entries, at + 4)
            switch tag {
            case dngVersion:
                return .dng
            case subIFDs, privateData:
                rawSign = true
            case compression where type == 3 && valueCount == 1:
                if !tiffCompressions.contains(u16(entries, at + 8)) { rawSign = true }
            case make where type == 2 && valueCount > 0:
                let length = min(valueCount, 64)
                let bytes = length <= 4 ? Array(entries[at + 8..<at + 8 + length])
                    : (try? source.bytes(at: u32(entries, at + 8), count: length)) ?? []
                makeText = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).uppercased()
            default:
                break
            }
        }
        guard rawSign, let makeText else { return nil }
        if makeText.hasPrefix("NIKON") { return .nef }
        if makeText.hasPrefix("SONY") { return .arw }
        if makeText.hasPrefix("PENTAX") || makeText.hasPrefix("RICOH IMAGING") || makeText.hasPrefix("ASAHI") { return .pef }
        if makeText.hasPrefix("SAMSUNG") { return .srw }
        return nil
    }
}
