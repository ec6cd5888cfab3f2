/// Walks the RIFF chunks of a WebP file: the pixel size comes from VP8X (the
/// canvas) or else from the VP8/VP8L bitstream header, the EXIF block from the
/// `EXIF` chunk (some writers put "Exif\0\0" before the TIFF header, some do not).
enum WebPContainer {
    static let maximumChunks = 100_000

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .webp)
        guard let riff = try source.exactly(at: 0, count: 12) else {
            contents.warnings.append("WebP header cut off (file truncated)")
            return contents
        }
        let declaredEnd = Int(littleEndian(riff, 4, 4)) + 8
        if declaredEnd > source.size {
            contents.warnings.append("WebP declares \(declaredEnd) bytes but the file has \(source.size) (truncated)")
        }
        let end = min(declaredEnd, source.size)
        var offset = 12
        var canvas: (Int, Int)?, bitstream: (Int, Int)?
        for index in 0..<maximumChunks where offset + 8 <= end {
            guard let header = try source.exactly(at: offset, count: 8) else { break }
            let type = String(decoding: header[0..<4], as: UTF8.self)
            let length = Int(littleEndian(header, 4, 4))
            let dataOffset = offset + 8
            guard length <= end - dataOffset else {
                contents.warnings.append("WebP chunk \(type) at byte \(offset) runs past the end of the file (truncated)")
                break
            }
            switch type {
            case "VP8X":
                if let data = try source.exactly(at: dataOffset, count: 10) {
                    canvas = (Int(littleEndian(data, 4, 3)) + 1, Int(littleEndian(data, 7, 3)) + 1)
                }
            case "VP8 ":
                if bitstream == nil, let data = try source.exactly(at: dataOffset, count: 10),
                   data[3] == 0x9D, data[4] == 0x01, data[5] == 0x2A {
                    bitstream = (Int(littleEndian(data, 6, 2)) & 0x3FFF, Int(littleEndian(data, 8, 2)) & 0x3FFF)
                }
            case "VP8L":
                if bitstream == nil, let data = try source.exactly(at: dataOffset, count: 5), data[0] == 0x2F {
                    let bits = littleEndian(data, 1, 4)
                    bitstream = (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
                }
            case "EXIF":
                if contents.exif == nil {
                    contents.setExif(try source.bytes(at: dataOffset, count: length), from: "WebP EXIF chunk")
                }
            case "XMP ":
                if contents.xmp == nil, length <= XMPReader.maximumPacket {
                    contents.setXMP(try source.bytes(at: dataOffset, count: length), from: "WebP XMP chunk")
                }
            default:
                break
            }
            offset = dataOffset + length + (length & 1)
            if index == maximumChunks - 1 && offset + 8 <= end {
                contents.warnings.append("WebP has more than \(maximumChunks) chunks: those after byte \(offset) were not read (EXIF there is missed)")
            }
        }
        if let (width, height) = canvas ?? bitstream { contents.setSize(width: width, height: height) }
        if contents.width == nil { contents.warnings.append("WebP has no VP8X, VP8 or VP8L header: pixel size unknown") }
        return contents
    }

    private static func littleEndian(_ b: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<width).reversed() { value = value << 8 | UInt64(b[offset + i]) }
        return value
    }
}
