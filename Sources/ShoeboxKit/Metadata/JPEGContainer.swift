/// Walks JPEG marker segments from SOI up to SOS: the EXIF block is the first
/// APP1 segment starting with "Exif\0\0", the pixel size comes from the first
/// SOFn frame header. Entropy-coded data is never read.
enum JPEGContainer {
    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .jpeg)
        var offset = 2  // after SOI
        while true {
            guard let header = try source.exactly(at: offset, count: 2) else {
                contents.warnings.append("JPEG headers end at byte \(offset) before the image data (file truncated)")
                break
            }
            guard header[0] == 0xFF else {
                contents.warnings.append("JPEG marker expected at byte \(offset), found 0x\(hex(header[0])); headers damaged")
                break
            }
            let marker = header[1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            if marker == 0xD9 {
                contents.warnings.append("JPEG ends (EOI) before any image data")
                break
            }
            guard let lengthBytes = try source.exactly(at: offset + 2, count: 2) else {
                contents.warnings.append("JPEG segment 0x\(hex(marker)) at byte \(offset) is cut off (file truncated)")
                break
            }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2 else {
                contents.warnings.append("JPEG segment 0x\(hex(marker)) at byte \(offset) has an impossible length \(length)")
                break
            }
            let payloadOffset = offset + 4, payloadLength = length - 2
            if marker == 0xDA { break }  // SOS: image data follows, nothing more to read
            let cutOff = payloadLength > source.size - payloadOffset
            if cutOff {
                contents.warnings.append("JPEG segment 0x\(hex(marker)) at byte \(offset) runs past the end of the file (truncated)")
            }
            if marker == 0xE1, contents.exif == nil {
                try readAPP1(source, at: payloadOffset, length: payloadLength, into: &contents)
            } else if isFrameHeader(marker), contents.width == nil {
                if let frame = try source.exactly(at: payloadOffset, count: 5) {
                    let height = Int(frame[1]) << 8 | Int(frame[2])
                    let width = Int(frame[3]) << 8 | Int(frame[4])
                    contents.setSize(width: width, height: height)
                } else {
                    contents.warnings.append("JPEG frame header at byte \(offset) is cut off (file truncated)")
                    break
                }
            }
            if cutOff { break }
            offset = payloadOffset + payloadLength
        }
        if contents.width == nil, !contents.warnings.isEmpty || contents.exif != nil {
            contents.warnings.append("no JPEG frame header (SOF) found: pixel size unknown")
        }
        return contents
    }

    private static func readAPP1(_ source: ByteSource, at offset: Int, length: Int, into contents: inout ContainerContents) throws {
        guard length >= 6, let prefix = try source.exactly(at: offset, count: 6),
              ExifBlockReader.hasExifHeader(prefix) else { return }  // XMP or other APP1
        contents.setExif(try source.bytes(at: offset, count: length), from: "JPEG APP1 segment")
    }

    /// SOF0...SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    private static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
