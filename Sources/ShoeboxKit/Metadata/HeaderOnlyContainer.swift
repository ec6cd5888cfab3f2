/// Formats that carry no EXIF Shoebox reads, only a pixel size in a fixed header: GIF, BMP.
enum HeaderOnlyContainer {
    static func read(_ source: ByteSource, format: ImageFormat) throws -> ContainerContents {
        var contents = ContainerContents(format: format)
        switch format {
        case .gif:
            if let b = try source.exactly(at: 6, count: 4) {
                contents.setSize(width: Int(b[0]) | Int(b[1]) << 8, height: Int(b[2]) | Int(b[3]) << 8)
            }
        case .bmp:
            if let b = try source.exactly(at: 18, count: 8) {
                let width = Int32(bitPattern: UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24)
                let height = Int32(bitPattern: UInt32(b[4]) | UInt32(b[5]) << 8 | UInt32(b[6]) << 16 | UInt32(b[7]) << 24)
                contents.setSize(width: Int(width.magnitude), height: Int(height.magnitude))
            }
        default:
            break
        }
        if contents.width == nil { contents.warnings.append("\(format.rawValue.uppercased()) header cut off (file truncated)") }
        return contents
    }
}
