/// Picks the container reader for a sniffed format.
enum ContainerReader {
    /// Formats whose structure Shoebox walks itself; for the others only the format is reported.
    static func isSupported(_ format: ImageFormat) -> Bool {
        switch format {
        case .jpeg, .png, .webp, .heic, .heif, .avif, .gif, .bmp, .raf, .cr3, .mrw, .crw, .x3f, .kyoceraRaw, .jp2, .jxl: return true
        default: return format.isTIFFBased
        }
    }

    static func read(_ source: ByteSource, format: ImageFormat) throws -> ContainerContents {
        switch format {
        case .jpeg:
            return try JPEGContainer.read(source)
        case .png:
            return try PNGContainer.read(source)
        case .webp:
            return try WebPContainer.read(source)
        case .heic, .heif, .avif:
            return try ISOMediaContainer.read(source, format: format)
        case .gif, .bmp:
            return try HeaderOnlyContainer.read(source, format: format)
        case .raf:
            return try RAFContainer.read(source)
        case .cr3:
            return try CR3Container.read(source)
        case .mrw:
            return try MRWContainer.read(source)
        case .kyoceraRaw:
            return try KyoceraRawContainer.read(source)
        case .crw:
            return try CRWContainer.read(source)
        case .jp2:
            return try JP2Container.read(source)
        case .jxl:
            return try JXLContainer.read(source)
        case .x3f:
            return try X3FContainer.read(source)
        case _ where format.isTIFFBased:
            let repacked = TIFFStructure.repack(source)
            var contents = ContainerContents(format: repacked.isDNG ? .dng : format)
            contents.exif = repacked.tiff
            if let size = repacked.mainImageSize { contents.setSize(width: size.width, height: size.height) }
            contents.warnings = repacked.warnings
            contents.omitted = repacked.omitted
            contents.makerNote = repacked.makerNote.map { (source, $0) }
            if let xmp = repacked.xmp {
                if xmp.count > XMPReader.maximumPacket {
                    contents.warnings.append("TIFF XMLPacket of \(xmp.count) bytes is over \(XMPReader.maximumPacket / 1024) KiB; not read")
                } else if let packet = try source.exactly(at: xmp.lowerBound, count: xmp.count) {
                    contents.setXMP(packet, from: "TIFF XMLPacket")
                }
            }
            return contents
        default:
            var contents = ContainerContents(format: format)
            contents.warnings.append("Shoebox does not read metadata from \(format.rawValue.uppercased()) files yet; only the format is known")
            return contents
        }
    }
}
