/// Minolta MRW: "\0MRM" and the length of a header of blocks, each a 4-byte name and a 4-byte
/// big-endian length: PRD gives the image's pixel size (ImageHeight at 12, ImageWidth at 14, as
/// exiftool reports them; the sensor's larger size is at 8 and 10), TTW holds a TIFF structure
/// with the camera's EXIF. Raw pixels follow the header and are never read.
enum MRWContainer {
    /// Blocks read before giving up (real files have about five).
    static let maximumBlocks = 64

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .mrw)
        guard let header = try source.exactly(at: 0, count: 8) else {
            contents.warnings.append("MRW header cut off (file truncated)")
            return contents
        }
        let end = min(source.size, 8 + Int(ISOMediaContainer.bigEndian(header, 4, 4)))
        var offset = 8
        for _ in 0..<maximumBlocks where offset + 8 <= end {
            guard let block = try source.exactly(at: offset, count: 8) else { break }
            let name = String(decoding: block[1..<4], as: UTF8.self), length = Int(ISOMediaContainer.bigEndian(block, 4, 4))
            let start = offset + 8
            guard length <= end - start else {
                contents.warnings.append("MRW block \(name) (\(length) bytes at \(start)) runs past the header")
                break
            }
            switch name {
            case "PRD":
                if let sizes = try source.exactly(at: start + 12, count: 4) {
                    contents.setSize(width: Int(ISOMediaContainer.bigEndian(sizes, 2, 2)), height: Int(ISOMediaContainer.bigEndian(sizes, 0, 2)))
                }
            case "TTW":
                let repacked = TIFFStructure.repack(SliceByteSource(base: source, offset: start, size: length))
                contents.exif = repacked.tiff
                contents.warnings += repacked.warnings.map { "MRW TTW block: " + $0 }
                contents.omitted = repacked.omitted
                contents.makerNote = repacked.makerNote.map { (SliceByteSource(base: source, offset: start, size: length), $0) }
            default:
                break
            }
            offset = start + length
        }
        if contents.exif == nil, contents.width == nil {
            contents.warnings.append("MRW header holds neither a PRD nor a TTW block")
        }
        return contents
    }
}
