import Foundation

/// Fills values a photo's standard EXIF leaves out from its maker notes (EXIF tag 0x927C),
/// where exiftool's tag tables say the maker keeps them, in exiftool's `-n` form, marked
/// with their source (`PhotoMetadata.sources`):
/// - Canon: ISO (CameraSettings' CameraISO, else BaseISO × AutoISO / 100 from ShotInfo, as
///   exiftool's Composite:ISO; older PowerShots write no standard ISO) and LensModel (0x0095);
/// - Nikon: ISO (0x0002, two numbers, "0 200" as exiftool's `-n` prints them).
///
/// libexif parses these maker notes too, but hands their values out only as display text
/// (Canon's AutoISO as "2.134", its ISO rounded; Nikon's as "ISO 400"), so the raw values
/// are read here, from the maker note's own IFD, with `TIFFStructure`'s checked reader.
enum MakerNoteReader {
    /// A maker note larger than this is not read (real ones are a few KiB to some 100 KiB).
    static let maximumSize = 1024 * 1024

    /// `source`: the TIFF structure holding the EXIF (Canon's offsets count from its start);
    /// `range`: the MakerNote value within it.
    static func merge(_ source: ByteSource, makerNote range: Range<Int>, into metadata: inout PhotoMetadata) {
        guard range.count >= 8, range.count <= maximumSize, let make = metadata.make?.lowercased() else { return }
        do {
            if make.hasPrefix("canon") {
                try canon(source, range, into: &metadata)
            } else if make.hasPrefix("nikon") {
                try nikon(source, range, into: &metadata)
            }
        } catch {
            metadata.warnings.append("maker notes could not be read: \(error)")
        }
    }

    // MARK: Canon

    private static func canon(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard let header = try source.exactly(at: 0, count: 2), let countBytes = try source.exactly(at: range.lowerBound, count: 2) else { return }
        // Canon notes may keep another byte order than the EXIF's (exiftool's "Unknown"): read in
        // the EXIF's order, an entry count whose high byte is the larger means the other one.
        var bigEndian = header == [0x4D, 0x4D]
        let (high, low) = bigEndian ? (countBytes[0], countBytes[1]) : (countBytes[1], countBytes[0])
        if high != 0, high > low { bigEndian.toggle() }
        var reader = TIFFStructure.Reader(source: source)
        reader.bigEndian = bigEndian
        guard var (entries, _) = try reader.readIFD(at: range.lowerBound, name: "MakerNotes") else {
            metadata.warnings += reader.warnings.map { "Canon maker notes: " + $0 }
            return
        }
        // A photo edited after the camera may have moved the notes; their 8-byte footer ("II*\0"
        // and the notes' original offset) says by how much their values' offsets are off.
        if let shift = try canonFooterShift(source, range, bigEndian: bigEndian, entries: entries) {
            var shifted = TIFFStructure.Reader(source: ShiftedByteSource(base: source, shift: shift))
            shifted.bigEndian = bigEndian
            guard let (found, _) = try shifted.readIFD(at: range.lowerBound - shift, name: "MakerNotes") else { return }
            entries = found
        }
        let values = Values(entries: entries, bigEndian: bigEndian)
        if metadata.iso == nil,
           let iso = canonISO(cameraSettings: values.canonArray(0x0001), shotInfo: values.canonArray(0x0004)) {
            metadata.iso = Int(iso.rounded())
            if iso != iso.rounded() { metadata.isoAsWritten = .number(iso) }
            metadata.sources["ISO"] = .makerNotes
        }
        if metadata.lensModel == nil, let lens = values.text(0x0095), !lens.isEmpty {
            metadata.lensModel = lens
            metadata.sources["LensModel"] = .makerNotes
        }
    }

    /// How far the Canon notes moved since the camera wrote them (their footer's original offset
    /// against where they are), as exiftool's FixBase finds it; nil when they did not move, have
    /// no footer, or their last value ends right before the footer (an editor that updated the
    /// offsets but not the footer).
    private static func canonFooterShift(_ source: ByteSource, _ range: Range<Int>, bigEndian: Bool,
                                         entries: [TIFFStructure.Entry]) throws -> Int? {
        guard range.count > 8, let footer = try source.exactly(at: range.upperBound - 8, count: 8) else { return nil }
        guard Array(footer[0..<4]) == (bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]) else { return nil }
        let bytes = bigEndian ? Array(footer[4..<8]) : footer[4..<8].reversed()
        let original = bytes.reduce(0) { $0 << 8 | Int($1) }
        let shift = range.lowerBound - original
        guard shift != 0 else { return nil }
        if let lastEnd = entries.compactMap({ $0.pending.map { $0.offset + $0.length } }).max() {
            let gap = range.upperBound - lastEnd - 8
            if gap == 0 || gap == 1 { return nil }
        }
        return shift
    }

    /// exiftool's Composite:ISO for Canon: CameraSettings[16] (CameraISO) when it is a number,
    /// else BaseISO × AutoISO / 100 from ShotInfo[2] and ShotInfo[1]. Values are int16s.
    static func canonISO(cameraSettings: [Int64]?, shotInfo: [Int64]?) -> Double? {
        if let settings = cameraSettings, settings.count > 16 {
            let raw = Int64(Int16(truncatingIfNeeded: settings[16])) & 0xFFFF
            if raw != 0x7FFF {
                if raw & 0x4000 != 0 { return Double(raw & 0x3FFF) }
                let table: [Int64: Double] = [16: 50, 17: 100, 18: 200, 19: 400, 20: 800]
                if let iso = table[raw] { return iso }
            }
        }
        guard let shot = shotInfo, shot.count > 2 else { return nil }
        let auto = Double(Int16(truncatingIfNeeded: shot[1])), base = Double(Int16(truncatingIfNeeded: shot[2]))
        guard base != 0 else { return nil }
        let autoISO = exp(auto / 32 * log(2.0)) * 100
        let baseISO = exp(base / 32 * log(2.0)) * 100 / 32
        return baseISO * autoISO / 100
    }

    // MARK: Nikon

    /// Nikon's type-3 notes ("Nikon\0", a version, then a TIFF header of their own, offsets
    /// counted from it); the D1's plain IFD (offsets counted from the EXIF's TIFF header).
    private static func nikon(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard metadata.iso == nil, let prefix = try source.exactly(at: range.lowerBound, count: 8) else { return }
        var reader: TIFFStructure.Reader
        let entries: [TIFFStructure.Entry]
        if prefix.starts(with: Array("Nikon\0".utf8)) {
            guard prefix[6] == 2, let note = try source.exactly(at: range.lowerBound + 10, count: range.count - 10) else { return }
            reader = TIFFStructure.Reader(source: MemoryByteSource(data: note))
            guard let (found, _) = try reader.readFirstIFD(name: "MakerNotes") else {
                metadata.warnings += reader.warnings.map { "Nikon maker notes: " + $0 }
                return
            }
            entries = found
        } else {
            guard let header = try source.exactly(at: 0, count: 2) else { return }
            reader = TIFFStructure.Reader(source: source)
            reader.bigEndian = header == [0x4D, 0x4D]
            guard let (found, _) = try reader.readIFD(at: range.lowerBound, name: "MakerNotes") else { return }
            entries = found
        }
        let values = Values(entries: entries, bigEndian: reader.bigEndian)
        guard let iso = values.integers(0x0002), let speed = iso.last, speed > 0, iso.count <= 2 else { return }
        metadata.iso = Int(speed)
        metadata.isoAsWritten = iso.count == 1 ? .number(Double(speed)) : .text(iso.map(String.init).joined(separator: " "))
        metadata.sources["ISO"] = .makerNotes
    }

    // MARK: Values

    /// A maker-note IFD's values by tag, read only when asked for (within the checked bounds).
    private struct Values {
        let entries: [TIFFStructure.Entry]
        let bigEndian: Bool

        func value(_ tag: UInt16) -> ExifValue? {
            guard let entry = entries.first(where: { $0.tag == tag }) else { return nil }
            var data = entry.data
            if let pending = entry.pending {
                guard let bytes = try? pending.source.exactly(at: pending.offset, count: pending.length) else { return nil }
                data = bytes
            }
            return ExifValue(format: UInt32(entry.type), count: Int(entry.count), raw: data, bigEndian: bigEndian)
        }

        func integers(_ tag: UInt16) -> [Int64]? {
            if case .integers(let values)? = value(tag) { return values }
            return nil
        }

        /// A Canon binary array (CameraSettings, ShotInfo) whose first value is its own size in
        /// bytes, as exiftool's Canon::Validate requires; nil when it is not.
        func canonArray(_ tag: UInt16) -> [Int64]? {
            guard let values = integers(tag), let first = values.first, first == Int64(values.count * 2) else { return nil }
            return values
        }

        func text(_ tag: UInt16) -> String? {
            guard case .text(let text)? = value(tag) else { return nil }
            return text.trimmingCharacters(in: .whitespaces)
        }
    }

    /// The bytes of `base` seen `shift` bytes off: offset x here is x + shift there.
    private struct ShiftedByteSource: ByteSource {
        let base: ByteSource
        let shift: Int

        var size: Int { max(0, base.size - shift) }

        func bytes(at offset: Int, count: Int) throws -> [UInt8] {
            guard offset + shift >= 0 else { return [] }
            return try base.bytes(at: offset + shift, count: count)
        }
    }
}
