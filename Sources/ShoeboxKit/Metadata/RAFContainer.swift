/// Fujifilm RAF: a fixed header whose bytes 84...91 give the offset and length
/// of an embedded JPEG preview; the camera's EXIF lives in that JPEG's APP1.
/// The pixel size of the raw image is not reported (the preview's is not it).
enum RAFContainer {
    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .raf)
        guard let header = try source.exactly(at: 84, count: 8) else {
            contents.warnings.append("RAF header cut off (file truncated)")
            return contents
        }
        let offset = Int(ISOMediaContainer.bigEndian(header, 0, 4)), length = Int(ISOMediaContainer.bigEndian(header, 4, 4))
        guard offset >= 92, length >= 4, offset <= source.size, length <= source.size - offset else {
            contents.warnings.append("RAF preview JPEG (\(length) bytes at \(offset)) lies outside the file")
            return contents
        }
        let preview = SliceByteSource(base: source, offset: offset, size: length)
        guard let soi = try preview.exactly(at: 0, count: 3), soi == [0xFF, 0xD8, 0xFF] else {
            contents.warnings.append("RAF preview at byte \(offset) is not a JPEG")
            return contents
        }
        let jpeg = try JPEGContainer.read(preview)
        contents.exif = jpeg.exif
        contents.warnings += jpeg.warnings.map { "RAF preview: " + $0 }
        return contents
    }
}

/// A window of another byte source, addressed from 0.
struct SliceByteSource: ByteSource {
    let base: ByteSource
    let offset: Int
    let size: Int

    func bytes(at position: Int, count: Int) throws -> [UInt8] {
        guard position >= 0, count > 0, position < size else { return [] }
        return try base.bytes(at: offset + position, count: min(count, size - position))
    }
}
