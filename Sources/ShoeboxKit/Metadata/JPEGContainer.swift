/// Walks JPEG marker segments from SOI up to SOS: the EXIF block is the first
/// APP1 segment starting with "Exif\0\0", the pixel size comes from the first
/// SOFn frame header. Entropy-coded data is never read.
///
/// Bytes that are not a marker between two segments (some writers leave a
/// stray pair behind a segment) are skipped up to the next 0xFF, as exiftool
/// does, with a warning; so are fill bytes (0xFF runs) and markers that have
/// no segment.
enum JPEGContainer {
    /// At most this many bytes outside segments (stray and fill bytes, markers without a
    /// segment) are stepped over in one file: a real file has a few, and a garbage file is
    /// neither read to its end looking for a marker nor walked two bytes at a time.
    static let maximumSkippedBytes = 64 * 1024
    /// How many bytes one look for the next 0xFF reads at a time.
    private static let strayScanChunk = 4096

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .jpeg)
        var offset = 2  // after SOI
        var skipped = 0
        while true {
            guard let header = try source.exactly(at: offset, count: 2) else {
                contents.warnings.append("JPEG headers end at byte \(offset) before the image data (file truncated)")
                break
            }
            guard header[0] == 0xFF else {
                guard let marker = try nextMarker(
                    source, after: offset, found: header[0], budget: maximumSkippedBytes - skipped, into: &contents) else { break }
                let count = marker - offset
                contents.warnings.append(
                    "JPEG has \(count) stray byte\(count == 1 ? "" : "s") at byte \(offset) between segments; skipped to the next marker")
                skipped += count
                offset = marker
                continue
            }
            let marker = header[1]
            // A fill byte, or a marker without a length: SOI, TEM, RSTn, and 0x00 (a stuffed 0xFF,
            // not a marker; exiftool steps over it).
            let step = marker == 0xFF ? 1 : [0xD8, 0x01, 0x00].contains(marker) || (0xD0...0xD7).contains(marker) ? 2 : 0
            if step > 0 {
                skipped += step
                guard skipped <= maximumSkippedBytes else {
                    contents.warnings.append("JPEG has over \(maximumSkippedBytes) bytes outside segments before byte \(offset); headers damaged")
                    break
                }
                offset += step
                continue
            }
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
            if marker == 0xED, contents.photoshop == nil, payloadLength >= photoshopSignature.count,
               try source.exactly(at: payloadOffset, count: photoshopSignature.count) == photoshopSignature {
                contents.photoshop = try source.bytes(at: payloadOffset, count: min(payloadLength, source.size - payloadOffset))
            }
            if marker == 0xE0, contents.rawHeader == nil, payloadLength >= 14, payloadLength <= maximumSideSegment,
               let payload = try source.exactly(at: payloadOffset, count: payloadLength), CRWContainer.isCIFF(payload) {
                // Canon's CIFF heaps in APP0 (early PowerShots): its values fill what EXIF leaves out.
                let ciff = try CRWContainer.read(MemoryByteSource(data: payload))
                contents.rawHeader = ciff.rawHeader
                contents.warnings += ciff.warnings.map { "JPEG APP0 CIFF: " + $0 }
            }
            if marker == 0xEC, contents.pictureInfo == nil, payloadLength <= maximumSideSegment,
               let payload = try source.exactly(at: payloadOffset, count: payloadLength) {
                contents.pictureInfo = payload
            }
            if marker == 0xE1, contents.exif == nil || contents.xmp == nil {
                try readAPP1(source, at: payloadOffset, length: min(payloadLength, source.size - payloadOffset), into: &contents)
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

    /// The offset of the next 0xFF after the stray byte `found` at `start`, skipping no more
    /// than `budget` bytes; nil (with a warning) when the file or the budget ends first.
    private static func nextMarker(
        _ source: ByteSource, after start: Int, found: UInt8, budget: Int, into contents: inout ContainerContents
    ) throws -> Int? {
        var offset = start
        while offset - start <= budget {
            let chunk = try source.bytes(at: offset, count: min(strayScanChunk, budget + 1 - (offset - start)))
            if let index = chunk.firstIndex(of: 0xFF) { return offset + index }
            offset += chunk.count
            if chunk.isEmpty || offset >= source.size {
                contents.warnings.append("JPEG marker expected at byte \(start), found 0x\(hex(found)) and no marker after it (file truncated or headers damaged)")
                return nil
            }
        }
        contents.warnings.append("JPEG marker expected at byte \(start), found 0x\(hex(found)) and no marker in the next \(budget) bytes; headers damaged")
        return nil
    }

    /// APP0 CIFF and APP12 segments larger than this are not read (one segment holds 64 KiB).
    static let maximumSideSegment = 64 * 1024

    /// The signature of an APP13 segment holding Photoshop resources (IPTC among them).
    static let photoshopSignature = Array("Photoshop 3.0\0".utf8)

    /// The signature of an APP1 segment holding an XMP packet.
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// An APP1 segment: EXIF ("Exif\0\0") or the main XMP packet; others (extended XMP) are skipped.
    private static func readAPP1(_ source: ByteSource, at offset: Int, length: Int, into contents: inout ContainerContents) throws {
        guard length >= 6, let prefix = try source.exactly(at: offset, count: min(length, xmpSignature.count)) else { return }
        if ExifBlockReader.hasExifHeader(prefix) {
            if contents.exif == nil { contents.setExif(try source.bytes(at: offset, count: length), from: "JPEG APP1 segment") }
        } else if prefix == xmpSignature, contents.xmp == nil {
            let start = offset + xmpSignature.count
            contents.setXMP(try source.bytes(at: start, count: length - xmpSignature.count), from: "JPEG APP1 segment")
        }
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
