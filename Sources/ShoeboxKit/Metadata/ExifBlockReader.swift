import CExif
import CShim

/// Parses one EXIF block with libexif and fills `PhotoMetadata`.
///
/// The block is first checked and compacted by `TIFFStructure` (IFD0, ExifIFD,
/// GPS, Interop, IFD1 and their values; no maker note, no thumbnail).
/// libexif is set up so that it neither invents tags (FOLLOW_SPECIFICATION
/// unset) nor drops unknown ones; values are decoded from the raw bytes with
/// the block's byte order, never from libexif's display text. GPS tags are
/// looked up in the GPS IFD only (their numbers collide with Interop tags).
enum ExifBlockReader {
    static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    /// "Exif\0" and one more byte (normally 0; some writers put 0xFF), as exiftool accepts.
    static func hasExifHeader<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        bytes.count >= 6 && bytes.prefix(5).elementsEqual(exifHeader.prefix(5))
    }

    /// Whether a profile holds EXIF: an Exif header or a TIFF header at its start.
    static func looksLikeExif(_ bytes: [UInt8]) -> Bool {
        hasExifHeader(bytes) || TIFFStructure.isTIFFHeader(Array(bytes.prefix(4)))
    }
    /// libexif addresses at most 64 KiB of a block (the size of a JPEG APP1 segment).
    static let maximumBlockSize = 0xFFFE

    /// The IFDs in report order, with their names in the EXIF specification's terms.
    static let groups: [(ifd: ExifIfd, name: String)] = [
        (EXIF_IFD_0, "IFD0"), (EXIF_IFD_EXIF, "ExifIFD"), (EXIF_IFD_GPS, "GPS"),
        (EXIF_IFD_INTEROPERABILITY, "Interop"), (EXIF_IFD_1, "IFD1"),
    ]

    /// Reads the TIFF structure `tiff` (without "Exif\0\0") into `metadata`. `omittedBefore`:
    /// tags a container's repacking of the same structure already left out.
    static func read(tiff: [UInt8], into metadata: inout PhotoMetadata, includeAllTags: Bool, omittedBefore: [TIFFStructure.Omitted] = []) {
        // Every block goes through TIFFStructure first: it checks each offset (reporting
        // what is broken), stops loops, and rebuilds a compact block within libexif's 64 KiB
        // reach. libexif then never sees offsets into the unknown, nor maker notes.
        let repacked = TIFFStructure.repack(MemoryByteSource(data: tiff))
        metadata.warnings += repacked.warnings.map { "EXIF: " + $0 }
        guard let block = repacked.tiff else { return }
        if exifHeader.count + block.count > maximumBlockSize {
            metadata.warnings.append("EXIF: block too large even without maker notes and thumbnails; tags past 64 KiB are lost")
        }
        let payload = exifHeader + block
        var warningText = [CChar](repeating: 0, count: 4096)
        let loaded = payload.withUnsafeBufferPointer { bytes in
            warningText.withUnsafeMutableBufferPointer { text in
                shim_exif_load(bytes.baseAddress, UInt32(bytes.count), text.baseAddress, text.count)
            }
        }
        guard let data = loaded else {
            metadata.warnings.append("EXIF: out of memory while parsing")
            return
        }
        defer { exif_data_unref(data) }
        let libexifWarnings = warningText.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        for line in libexifWarnings.split(separator: "\n") where !metadata.warnings.contains("EXIF: \(line)") {
            metadata.warnings.append("EXIF: \(line)")
        }
        let bigEndian = exif_data_get_byte_order(data) == EXIF_BYTE_ORDER_MOTOROLA
        var fields = ExifFields()
        for group in groups {
            guard let content = shim_exif_data_ifd(data, group.ifd), let entries = content.pointee.entries else { continue }
            for index in 0..<Int(content.pointee.count) {
                guard let entry = entries[index]?.pointee else { continue }
                let tag = UInt16(truncatingIfNeeded: entry.tag.rawValue)
                let format = entry.format.rawValue
                guard let size = ExifValue.componentSize(format: format), let bytes = entry.data else { continue }
                let available = Int(entry.size) / size
                let count = min(Int(clamping: entry.components), available)
                if count < Int(clamping: entry.components) {
                    metadata.warnings.append("EXIF: \(group.name) tag 0x\(String(tag, radix: 16)) holds fewer values than it declares")
                }
                let raw = Array(UnsafeBufferPointer(start: bytes, count: count * size))
                guard let value = ExifValue(format: format, count: count, raw: raw, bigEndian: bigEndian) else { continue }
                fields.values[ExifFields.Key(group: group.name, tag: tag)] = value
                if includeAllTags, let listed = listedTag(group: group, tag: tag, format: format, value: value) {
                    metadata.tags.append(listed)
                }
            }
        }
        fields.apply(to: &metadata)
        if let makerNote = repacked.makerNote {
            MakerNoteReader.merge(MemoryByteSource(data: tiff), makerNote: makerNote, into: &metadata)
        }
        if includeAllTags { addOmittedTags(omittedBefore + repacked.omitted, to: &metadata) }
    }

    /// Lists the tags the compact block left out, then keeps every group together in report order.
    private static func addOmittedTags(_ omitted: [TIFFStructure.Omitted], to metadata: inout PhotoMetadata) {
        guard !omitted.isEmpty else { return }
        for tag in omitted {
            guard let group = groups.first(where: { $0.name == tag.group }) else { continue }
            if let value = tag.value {
                if let listed = listedTag(group: group, tag: tag.tag, format: nil, value: value) { metadata.tags.append(listed) }
                continue
            }
            metadata.tags.append(ExifTag(
                group: tag.group, name: tagName(tag.tag, ifd: group.ifd), id: tag.tag, value: "(\(tag.byteCount) bytes, not decoded)"))
        }
        let order = Dictionary(uniqueKeysWithValues: groups.enumerated().map { ($0.element.name, $0.offset) })
        metadata.tags = metadata.tags.enumerated().sorted {
            let left = order[$0.element.group] ?? 99, right = order[$1.element.group] ?? 99
            return left != right ? left < right : $0.offset < $1.offset
        }.map(\.element)
    }

    /// The tag as `inspect --all` lists it: its value as exiftool -n prints it under that name
    /// (ExiftoolTagValue), or nil to leave it out when there is no such value.
    private static func listedTag(group: (ifd: ExifIfd, name: String), tag: UInt16, format: UInt32?, value: ExifValue) -> ExifTag? {
        let name = tagName(tag, ifd: group.ifd)
        switch ExiftoolTagValue.conversion(group: group.name, tag: tag, format: format, value: value) {
        case .raw:
            return ExifTag(group: group.name, name: name, id: tag, value: value.displayText, numbers: value.numbers.compactMap { $0 })
        case .converted(let text, let numbers):
            return ExifTag(group: group.name, name: name, id: tag, value: text, numbers: numbers)
        case .leftOut:
            return nil
        }
    }

    /// The tag's name in the EXIF specification, or "Tag0xNNNN" when libexif does not know it.
    static func tagName(_ tag: UInt16, ifd: ExifIfd) -> String {
        if let name = exif_tag_get_name_in_ifd(CExif.ExifTag(rawValue: UInt32(tag)), ifd) {
            return String(cString: name)
        }
        let hex = String(tag, radix: 16, uppercase: true)
        return "Tag0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
