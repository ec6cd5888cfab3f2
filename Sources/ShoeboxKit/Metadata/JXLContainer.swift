/// JPEG XL: a bare codestream (FF 0A, then the size header) or an ISO-BMFF container ("JXL "
/// signature box) whose "jxlc" box, or first "jxlp" box (after a 4-byte index), holds the
/// codestream, with "Exif" (a 4-byte offset, then the TIFF block) and "xml " (XMP) boxes.
/// The pixel size is decoded from the codestream's SizeHeader bits; pixels are never read.
enum JXLContainer {
    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .jxl)
        if let start = try source.exactly(at: 0, count: 2), start == [0xFF, 0x0A] {
            if let size = sizeHeader(try source.bytes(at: 2, count: 16)) { contents.setSize(width: size.width, height: size.height) }
        } else {
            for box in try JP2Container.topLevelBoxes(source, warnings: &contents.warnings) {
                switch box.type {
                case "jxlc", "jxlp":
                    guard contents.width == nil else { continue }
                    let skip = box.type == "jxlp" ? 4 : 0
                    let head = try source.bytes(at: box.payload.lowerBound + skip, count: min(18, max(0, box.payload.count - skip)))
                    if head.count >= 2, head[0] == 0xFF, head[1] == 0x0A, let size = sizeHeader(Array(head[2...])) {
                        contents.setSize(width: size.width, height: size.height)
                    }
                case "Exif" where box.payload.count > 4 && box.payload.count <= ISOMediaContainer.maximumExifSize:
                    guard let payload = try source.exactly(at: box.payload.lowerBound, count: box.payload.count) else { continue }
                    exif(payload, into: &contents)
                case "xml " where box.payload.count <= XMPReader.maximumPacket:
                    if let payload = try source.exactly(at: box.payload.lowerBound, count: box.payload.count) {
                        contents.setXMP(payload, from: "JPEG XL xml box")
                    }
                case "brob" where box.payload.count > 4 && box.payload.count <= ISOMediaContainer.maximumExifSize:
                    // A Brotli-compressed box: its real type, then the compressed payload.
                    guard let payload = try source.exactly(at: box.payload.lowerBound, count: box.payload.count) else { continue }
                    let inner = String(decoding: payload[0..<4], as: UTF8.self)
                    guard inner == "Exif" || inner == "xml " else { continue }
                    let limit = inner == "Exif" ? ISOMediaContainer.maximumExifSize : XMPReader.maximumPacket
                    guard let data = unbrotli(Array(payload[4...]), limit: limit) else {
                        contents.warnings.append("JPEG XL compressed \(inner) box does not decompress within \(limit / 1024) KiB; not read")
                        continue
                    }
                    if inner == "Exif" {
                        if data.count > 4 { exif(data, into: &contents) }
                    } else {
                        contents.setXMP(data, from: "JPEG XL compressed xml box")
                    }
                default:
                    break
                }
            }
        }
        if contents.width == nil { contents.warnings.append("JPEG XL size header not found or cut off") }
        return contents
    }

    /// An Exif box's payload: a 4-byte offset to the TIFF header, then the block.
    private static func exif(_ payload: [UInt8], into contents: inout ContainerContents) {
        let skip = Int(ISOMediaContainer.bigEndian(payload, 0, 4))
        guard skip <= payload.count - 4 else {
            contents.warnings.append("JPEG XL Exif box's offset \(skip) runs past it")
            return
        }
        contents.setExif(Array(payload[(4 + skip)...]), from: "JPEG XL Exif box")
    }

    /// Brotli-decoded `data` (complete and within `limit` bytes), else nil.
    static func unbrotli(_ data: [UInt8], limit: Int) -> [UInt8]? {
        guard let decoder = try? ContentDecoder(contentEncoding: "br") else { return nil }
        var output: [UInt8] = []
        let progress = try? data.withUnsafeBytes { bytes in
            try decoder.decode(bytes) { piece in
                guard output.count + piece.count <= limit else { return false }
                output += piece
                return true
            }
        }
        guard let progress, progress != .refused, decoder.isComplete else { return nil }
        return output
    }

    /// The codestream's SizeHeader (after FF 0A), bits read least significant first.
    static func sizeHeader(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var position = 0
        func bits(_ count: Int) -> Int? {
            var value = 0
            for index in 0..<count {
                let bit = position + index
                guard bit / 8 < bytes.count else { return nil }
                value |= Int(bytes[bit / 8] >> UInt8(bit % 8) & 1) << index
            }
            position += count
            return value
        }
        func u32() -> Int? {
            guard let selector = bits(2), let value = bits([9, 13, 18, 30][selector]) else { return nil }
            return value + 1
        }
        guard let small = bits(1) else { return nil }
        let height: Int
        if small == 1 {
            guard let h = bits(5) else { return nil }
            height = (h + 1) * 8
        } else {
            guard let h = u32() else { return nil }
            height = h
        }
        guard let ratio = bits(3) else { return nil }
        if ratio == 0 {
            if small == 1 {
                guard let w = bits(5) else { return nil }
                return ((w + 1) * 8, height)
            }
            guard let w = u32() else { return nil }
            return (w, height)
        }
        let ratios = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]
        let (numerator, denominator) = ratios[ratio - 1]
        return (height * numerator / denominator, height)
    }
}
