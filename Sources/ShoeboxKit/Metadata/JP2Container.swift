/// JPEG 2000 (JP2, JPX): a signature box, then boxes; the image header ("ihdr", inside "jp2h")
/// gives the pixel size (height, then width, big-endian), an "xml " box or the XMP "uuid" box
/// may hold an XMP packet, and the "JpgTiffExif->JP2" uuid box an EXIF block. Only box headers
/// and these small boxes are read; the codestream is never read.
enum JP2Container {
    static let signature: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
    static let exifUUID = Array("JpgTiffExif->JP2".utf8)
    /// A header or metadata box larger than this is not read.
    static let maximumBox = 1024 * 1024

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .jp2)
        for box in try topLevelBoxes(source, warnings: &contents.warnings) {
            guard ["jp2h", "xml ", "uuid"].contains(box.type), box.payload.count <= maximumBox,
                  let payload = try source.exactly(at: box.payload.lowerBound, count: box.payload.count) else { continue }
            switch box.type {
            case "jp2h":
                let children = ISOMediaContainer.boxes(in: payload, range: 0..<payload.count, warnings: &contents.warnings)
                if let ihdr = children.first(where: { $0.type == "ihdr" }), ihdr.payload.count >= 8 {
                    let at = ihdr.payload.lowerBound
                    contents.setSize(width: Int(ISOMediaContainer.bigEndian(payload, at + 4, 4)),
                                     height: Int(ISOMediaContainer.bigEndian(payload, at, 4)))
                }
            case "xml ":
                if payload.count <= XMPReader.maximumPacket, containsXMP(payload) { contents.setXMP(payload, from: "JPEG 2000 xml box") }
            default:
                guard payload.count > 16 else { continue }
                let uuid = Array(payload[0..<16])
                if uuid == xmpUUID {
                    contents.setXMP(Array(payload[16...]), from: "JPEG 2000 XMP box")
                } else if uuid == exifUUID {
                    contents.setExif(Array(payload[16...]), from: "JPEG 2000 Exif box")
                }
            }
        }
        if contents.width == nil { contents.warnings.append("JPEG 2000 image header (ihdr) not found") }
        return contents
    }

    private static func containsXMP(_ bytes: [UInt8]) -> Bool {
        let marker = Array("xmpmeta".utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0] == marker[0] && bytes[$0..<$0 + marker.count].elementsEqual(marker) }
    }

    /// The top-level boxes' types and payload ranges, from their headers alone.
    static func topLevelBoxes(_ source: ByteSource, warnings: inout [String]) throws -> [ISOMediaContainer.Box] {
        var boxes: [ISOMediaContainer.Box] = []
        var offset = 0
        while offset + 8 <= source.size, boxes.count < ISOMediaContainer.maximumBoxes {
            guard let header = try source.exactly(at: offset, count: 16) ?? source.exactly(at: offset, count: 8) else { break }
            var size = Int(ISOMediaContainer.bigEndian(header, 0, 4)), headerLength = 8
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if size == 1 {
                guard header.count == 16 else { break }
                let large = ISOMediaContainer.bigEndian(header, 8, 8)
                size = large > UInt64(source.size - offset) ? -1 : Int(large)
                headerLength = 16
            } else if size == 0 {
                size = source.size - offset
            }
            guard size >= headerLength, size <= source.size - offset else {
                warnings.append("box \(type) at byte \(offset) has an impossible size; the rest of the file is skipped")
                break
            }
            boxes.append(ISOMediaContainer.Box(type: type, payload: offset + headerLength..<offset + size))
            offset += size
        }
        return boxes
    }
}
