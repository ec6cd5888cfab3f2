import CShim

/// Walks PNG chunk headers from IHDR to IEND (pixel data is skipped, never
/// read): the pixel size is in IHDR, the EXIF block in an `eXIf` chunk or, in
/// files from older tools, in a "Raw profile type exif" text chunk
/// (tEXt, zTXt or iTXt) holding the block as hex digits. Both may come after IDAT.
enum PNGContainer {
    /// Text chunks larger than this are not read (a real EXIF profile is a few KiB of hex).
    static let maximumTextChunk = 4 * 1024 * 1024
    static let maximumChunks = 100_000

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .png)
        var offset = 8
        var rawProfile: [UInt8]?
        for index in 0..<maximumChunks {
            guard let header = try source.exactly(at: offset, count: 8) else {
                contents.warnings.append("PNG ends at byte \(offset) without an IEND chunk (file truncated)")
                break
            }
            let length = Int(bigEndian32(header, 0))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            let dataOffset = offset + 8
            guard length <= source.size - dataOffset else {
                contents.warnings.append("PNG chunk \(type) at byte \(offset) runs past the end of the file (truncated)")
                break
            }
            if index == 0 && type != "IHDR" {
                contents.warnings.append("PNG does not start with an IHDR chunk")
                break
            }
            switch type {
            case "IHDR":
                if let data = try source.exactly(at: dataOffset, count: 8) {
                    contents.setSize(width: Int(bigEndian32(data, 0)), height: Int(bigEndian32(data, 4)))
                }
            case "eXIf":
                if contents.exif == nil {
                    contents.setExif(try source.bytes(at: dataOffset, count: length), from: "PNG eXIf chunk")
                }
            case "iTXt" where try isXMPChunk(source, at: dataOffset, length: length, contents: contents):
                if let packet = textOfXMPChunk(try source.bytes(at: dataOffset, count: length), warnings: &contents.warnings) {
                    contents.setXMP(packet, from: "PNG iTXt chunk")
                }
            case "tEXt", "zTXt", "iTXt":
                if rawProfile == nil, length <= maximumTextChunk,
                   let keyword = try source.exactly(at: dataOffset, count: min(length, 80)),
                   isRawExifProfile(keyword) {
                    let chunk = try source.bytes(at: dataOffset, count: length)
                    // "Raw profile type APP1" may hold XMP instead: only an EXIF/TIFF profile counts.
                    if let profile = decodeTextChunk(type: type, chunk, warnings: &contents.warnings),
                       ExifBlockReader.looksLikeExif(profile) {
                        rawProfile = profile
                    }
                }
            case "IEND":
                return finish(contents, rawProfile)
            default:
                break
            }
            offset = dataOffset + length + 4  // data and CRC
            if index == maximumChunks - 1 {
                contents.warnings.append(offset + 8 <= source.size
                    ? "PNG has more than \(maximumChunks) chunks: those after byte \(offset) were not read (EXIF there is missed)"
                    : "PNG ends at byte \(offset) without an IEND chunk (file truncated)")
            }
        }
        return finish(contents, rawProfile)
    }

    private static func finish(_ contents: ContainerContents, _ rawProfile: [UInt8]?) -> ContainerContents {
        var contents = contents
        if contents.exif == nil, let rawProfile {
            contents.setExif(rawProfile, from: "PNG \"Raw profile type exif\" text chunk")
        }
        return contents
    }

    /// The keyword (and its NUL) of the iTXt chunk holding an XMP packet.
    static let xmpKeyword = Array("XML:com.adobe.xmp\0".utf8)

    private static func isXMPChunk(_ source: ByteSource, at offset: Int, length: Int, contents: ContainerContents) throws -> Bool {
        guard contents.xmp == nil, length <= maximumTextChunk, length >= xmpKeyword.count else { return false }
        return try source.exactly(at: offset, count: xmpKeyword.count) == xmpKeyword
    }

    /// The text of an XMP iTXt chunk (inflated when compressed, within `XMPReader.maximumPacket`).
    static func textOfXMPChunk(_ chunk: [UInt8], warnings: inout [String]) -> [UInt8]? {
        var rest = chunk.dropFirst(xmpKeyword.count)
        guard rest.count >= 2 else { return nil }
        let compressed = rest[rest.startIndex] == 1
        rest = rest.dropFirst(2)
        for _ in 0..<2 {  // language tag, translated keyword
            guard let end = rest.firstIndex(of: 0) else { return nil }
            rest = rest[(end + 1)...]
        }
        guard compressed else { return Array(rest) }
        switch inflate(Array(rest), limit: XMPReader.maximumPacket) {
        case .inflated(let text): return text
        case .tooLarge:
            warnings.append("PNG iTXt XMP chunk inflates past \(XMPReader.maximumPacket / 1024) KiB; its XMP was not read")
        case .corrupt:
            warnings.append("PNG iTXt XMP chunk does not inflate (corrupt zlib data)")
        }
        return nil
    }

    private static func isRawExifProfile(_ prefix: [UInt8]) -> Bool {
        guard let nul = prefix.firstIndex(of: 0) else { return false }
        let keyword = String(decoding: prefix[..<nul], as: UTF8.self)
        return keyword == "Raw profile type exif" || keyword == "Raw profile type APP1"
    }

    /// The text of a tEXt/zTXt/iTXt chunk (inflated when compressed), then the profile's hex decoded.
    static func decodeTextChunk(type: String, _ chunk: [UInt8], warnings: inout [String]) -> [UInt8]? {
        guard let nul = chunk.firstIndex(of: 0) else { return nil }
        var rest = chunk[(nul + 1)...]
        var compressed = false
        switch type {
        case "zTXt":
            guard rest.first == 0 else { return nil }  // compression method 0 = zlib
            rest = rest.dropFirst()
            compressed = true
        case "iTXt":
            guard rest.count >= 2 else { return nil }
            compressed = rest[rest.startIndex] == 1
            rest = rest.dropFirst(2)
            for _ in 0..<2 {  // language tag, translated keyword
                guard let end = rest.firstIndex(of: 0) else { return nil }
                rest = rest[(end + 1)...]
            }
        default:
            break
        }
        var text = Array(rest)
        if compressed {
            let limit = maximumTextChunk * 4
            switch inflate(text, limit: limit) {
            case .inflated(let inflated):
                text = inflated
            case .tooLarge:
                warnings.append("PNG \(type) \"Raw profile type exif\" chunk inflates past \(limit / (1024 * 1024)) MiB; its EXIF was not read")
                return nil
            case .corrupt:
                warnings.append("PNG \(type) \"Raw profile type exif\" chunk does not inflate (corrupt zlib data)")
                return nil
            }
        }
        guard let profile = decodeRawProfile(text) else {
            warnings.append("PNG \"Raw profile type exif\" text is malformed")
            return nil
        }
        return profile
    }

    /// "\nexif\n   LENGTH\nHEX HEX..." as written by ImageMagick and exiftool.
    static func decodeRawProfile(_ text: [UInt8]) -> [UInt8]? {
        let body = text.drop { $0 == 0x0A || $0 == 0x0D }
        var lines = body.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count == 3 else { return nil }
        let lengthText = String(decoding: lines[1], as: UTF8.self).trimmingSpaces
        guard let length = Int(lengthText), length > 0, length <= text.count / 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var high: UInt8?
        for character in lines.removeLast() {
            guard let nibble = HexDigit.value(character) else {
                if character == 0x20 || character == 0x0A || character == 0x0D || character == 0x09 { continue }
                return nil
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
                if bytes.count == length { break }
            } else {
                high = nibble
            }
        }
        return bytes.count == length ? bytes : nil
    }

    enum Inflated: Equatable {
        case inflated([UInt8])
        case tooLarge
        case corrupt
    }

    static func inflate(_ data: [UInt8], limit: Int) -> Inflated {
        var size = 0
        var tooLarge: Int32 = 0
        guard let pointer = data.withUnsafeBufferPointer({ shim_zlib_inflate($0.baseAddress, $0.count, limit, &size, &tooLarge) }) else {
            return tooLarge != 0 ? .tooLarge : .corrupt
        }
        defer { shim_free(pointer) }
        return .inflated(Array(UnsafeBufferPointer(start: pointer, count: size)))
    }

    private static func bigEndian32(_ b: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
