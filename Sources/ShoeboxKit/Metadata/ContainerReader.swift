/// Picks the container reader for a sniffed format.
enum ContainerReader {
    static func read(_ source: ByteSource, format: ImageFormat, path: String) throws -> ContainerContents {
        switch format {
        case .jpeg:
            return try JPEGContainer.read(source)
        case _ where format.isTIFFBased:
            let repacked = TIFFStructure.repack(source)
            var contents = ContainerContents(format: repacked.isDNG ? .dng : format)
            contents.exif = repacked.tiff
            if let size = repacked.mainImageSize { contents.setSize(width: size.width, height: size.height) }
            contents.warnings = repacked.warnings
            return contents
        default:
            var contents = ContainerContents(format: format)
            contents.warnings.append("reading metadata from \(format.rawValue.uppercased()) files is not supported yet")
            return contents
        }
    }
}
