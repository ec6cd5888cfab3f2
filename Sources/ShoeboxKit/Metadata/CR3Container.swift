/// Canon CR3 (ISO base media): the `moov` box holds a `uuid` box (Canon's
/// 85c0b687-820f-11e0-8111-f4ce462b6a48) whose CMT1, CMT2 and CMT4 children are
/// small TIFFs with IFD0, ExifIFD and GPS; they are combined into one EXIF block.
/// The pixel size is IFD0's ImageWidth/ImageLength (the sensor image). Media data is never read.
enum CR3Container {
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .cr3)
        guard let moov = try ISOMediaContainer.topLevelBox("moov", in: source, warnings: &contents.warnings) else {
            contents.warnings.append("CR3 has no moov box")
            return contents
        }
        let children = ISOMediaContainer.boxes(in: moov, range: 0..<moov.count, warnings: &contents.warnings)
        guard let canon = children.first(where: {
            $0.type == "uuid" && $0.payload.count >= 16 && Array(moov[$0.payload.prefix(16)]) == canonUUID
        }) else {
            contents.warnings.append("CR3 has no Canon metadata box")
            return contents
        }
        let start = canon.payload.lowerBound + 16
        let tiffs = ISOMediaContainer.boxes(in: moov, range: start..<canon.payload.upperBound, warnings: &contents.warnings)
        func block(_ type: String) -> ByteSource? {
            tiffs.first { $0.type == type }.map { MemoryByteSource(data: Array(moov[$0.payload])) }
        }
        guard let ifd0 = block("CMT1") else {
            contents.warnings.append("CR3 has no CMT1 (IFD0) box")
            return contents
        }
        let combined = TIFFStructure.combine(ifd0: ifd0, exif: block("CMT2"), gps: block("CMT4"))
        contents.exif = combined.tiff
        contents.warnings += combined.warnings
        contents.omitted = combined.omitted
        if let size = combined.mainImageSize { contents.setSize(width: size.width, height: size.height) }
        return contents
    }
}
