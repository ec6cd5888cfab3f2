import Foundation

/// Fills values a photo's standard EXIF leaves out from its maker notes (EXIF tag 0x927C),
/// where exiftool's tag tables say the maker keeps them, in exiftool's `-n` form, marked
/// with their source (`PhotoMetadata.sources`):
/// - Canon: ISO (CameraSettings' CameraISO, else BaseISO × AutoISO / 100 from ShotInfo, as
///   exiftool's Composite:ISO; older PowerShots write no standard ISO) and LensModel (0x0095);
/// - Nikon: ISO (0x0002, two numbers, "0 200" as exiftool's `-n` prints them);
/// - Casio: ISO (0x0014, or 0x3014 in the "QVC" notes);
/// - Asahi (the Pentax Optio 330 and 430): ISO (0x0014, a speed or a code);
/// - Olympus: LensModel (0x0203 of the Equipment IFD, 0x2010, in the "OLYMPUS\0" notes);
/// - Kodak ("KDK" and type-3 binary notes): the measured ExposureTime and FNumber, which
///   exiftool prints over EXIF's nominal ones (0.03111 s for EXIF's 1/30), and ISO;
/// - Minolta: ExposureTime and FNumber from CameraSettings (0x0001 or 0x0003), where EXIF has none;
/// - Phase One and Leaf ("IIII" then "?waR"): the image's size (0x010C, 0x010D; the IIQ's IFD0
///   says 1 × 1) and LensModel (0x0412);
/// - Reconyx HyperFire (trail cameras; 0x01 0xF1): DateTimeOriginal, where EXIF has none.
///
/// Pentax's own notes ("AOC\0") keep an ISO *index* at 0x0014 (9 for ISO 200), which exiftool's
/// `-n` prints over the standard ISO; it is not read here, and the standard ISO stays.
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
        guard range.count >= 8, range.count <= maximumSize else { return }
        // Most notes are told apart by the camera's Make; Phase One's and Reconyx's by their first bytes.
        let make = metadata.make?.lowercased() ?? ""
        do {
            if let head = try source.exactly(at: range.lowerBound, count: 8), head.starts(with: Array("IIII".utf8)),
               Array(head[5..<8]) == Array("waR".utf8) {
                try phaseOne(source, range, into: &metadata)
            } else if let head = try source.exactly(at: range.lowerBound, count: 4), head[0] == 0x01, head[1] == 0xF1,
                      [0x02, 0x03].contains(head[2]) && head[3] == 0 || make == "reconyx" {
                try reconyx(source, range, into: &metadata)
            } else if make.hasPrefix("canon") {
                try canon(source, range, into: &metadata)
            } else if make.hasPrefix("nikon") {
                try nikon(source, range, into: &metadata)
            } else if make.hasPrefix("casio") {
                try casio(source, range, into: &metadata)
            } else if make.hasPrefix("asahi") {
                try asahi(source, range, into: &metadata)
            } else if make.hasPrefix("olympus") {
                try olympus(source, range, into: &metadata)
            } else if make.hasPrefix("eastman kodak") {
                try kodak(source, range, into: &metadata)
            } else if make.hasPrefix("minolta") || make.hasPrefix("konica minolta") {
                try minolta(source, range, into: &metadata)
            }
        } catch {
            metadata.warnings.append("maker notes could not be read: \(error)")
        }
    }

    // MARK: Canon

    private static func canon(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard var (entries, bigEndian) = try plainIFD(source, at: range.lowerBound, maker: "Canon", into: &metadata) else { return }
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
           let iso = canonISO(cameraSettings: values.canonArray(0x0001), shotInfo: values.canonArray(0x0004)),
           iso.isFinite, iso > 0, iso < 10_000_000 {  // a hostile ShotInfo reaches 2^1024
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

    /// An IFD at `offset` whose values' offsets count from the start of `source`, in the EXIF's
    /// byte order unless the entry count says otherwise (exiftool's "Unknown" order for maker
    /// notes: read in the EXIF's order, a count whose high byte is the larger means the other).
    private static func plainIFD(_ source: ByteSource, at offset: Int, maker: String,
                                 into metadata: inout PhotoMetadata) throws -> ([TIFFStructure.Entry], Bool)? {
        guard let header = try source.exactly(at: 0, count: 2), let countBytes = try source.exactly(at: offset, count: 2) else { return nil }
        var bigEndian = header == [0x4D, 0x4D]
        let (high, low) = bigEndian ? (countBytes[0], countBytes[1]) : (countBytes[1], countBytes[0])
        if high != 0, high > low { bigEndian.toggle() }
        var reader = TIFFStructure.Reader(source: source)
        reader.bigEndian = bigEndian
        guard let (entries, _) = try reader.readIFD(at: offset, name: "MakerNotes") else {
            metadata.warnings += reader.warnings.map { "\(maker) maker notes: " + $0 }
            return nil
        }
        return (entries, bigEndian)
    }

    // MARK: Casio

    /// Casio's first notes are a plain IFD with the ISO at 0x0014; its later ones ("QVC\0" or
    /// "DCI\0", the IFD 6 bytes on) keep an ISO code at 0x0014 (3 for ISO 50 …; exiftool's `-n`
    /// prints the code) or the ISO itself at 0x3014. exiftool keeps the first found.
    private static func casio(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard metadata.iso == nil, metadata.isoAsWritten == nil, let prefix = try source.exactly(at: range.lowerBound, count: 4) else { return }
        let type2 = prefix == Array("QVC\0".utf8) || prefix == Array("DCI\0".utf8)
        guard let (entries, bigEndian) = try plainIFD(source, at: range.lowerBound + (type2 ? 6 : 0), maker: "Casio",
                                                        into: &metadata) else { return }
        let values = Values(entries: entries, bigEndian: bigEndian)
        guard let iso = (values.integers(0x0014) ?? (type2 ? values.integers(0x3014) : nil))?.first else { return }
        metadata.isoAsWritten = .number(Double(iso))
        // The code is not a speed; ISO 0 is "not known".
        if iso > 0, !(type2 && values.integers(0x0014) != nil) { metadata.iso = Int(iso) }
        metadata.sources["ISO"] = .makerNotes
    }

    // MARK: Asahi

    /// The Casio-like notes of the Optio 330 and 430 (a plain IFD): 0x0014 is the ISO speed or a
    /// code for it (10 for 100, 16 for 200); exiftool's `-n` prints it as written.
    private static func asahi(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard metadata.iso == nil, metadata.isoAsWritten == nil, let prefix = try source.exactly(at: range.lowerBound, count: 4),
              prefix != Array("AOC\0".utf8),
              let (entries, bigEndian) = try plainIFD(source, at: range.lowerBound, maker: "Asahi", into: &metadata),
              let iso = Values(entries: entries, bigEndian: bigEndian).integers(0x0014)?.first else { return }
        let speeds: Set<Int64> = [50, 100, 200, 400, 800, 1600, 3200]
        metadata.isoAsWritten = .number(Double(iso))
        if speeds.contains(iso) {
            metadata.iso = Int(iso)
        } else if let speed = [10: 100, 16: 200][iso] {
            metadata.iso = speed
        }
        metadata.sources["ISO"] = .makerNotes
    }

    // MARK: Olympus

    /// Olympus's later notes: "OLYMPUS\0", a byte order, then an IFD at 12 whose offsets count
    /// from the notes' start; the Equipment IFD (0x2010) names the lens (0x0203).
    private static func olympus(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard metadata.lensModel == nil, let note = try source.exactly(at: range.lowerBound, count: range.count),
              note.starts(with: Array("OLYMPUS\0".utf8)), note.count > 12 else { return }
        var reader = TIFFStructure.Reader(source: MemoryByteSource(data: note))
        switch (note[8], note[9]) {
        case (0x49, 0x49): reader.bigEndian = false
        case (0x4D, 0x4D): reader.bigEndian = true
        default: return
        }
        guard let (main, _) = try reader.readIFD(at: 12, name: "MakerNotes"),
              let pointer = Values(entries: main, bigEndian: reader.bigEndian).integers(0x2010)?.first,
              let (equipment, _) = try reader.readIFD(at: Int(pointer), name: "Equipment") else {
            metadata.warnings += reader.warnings.map { "Olympus maker notes: " + $0 }
            return
        }
        guard let lens = Values(entries: equipment, bigEndian: reader.bigEndian).text(0x0203), !lens.isEmpty else { return }
        metadata.lensModel = lens
        metadata.sources["LensModel"] = .makerNotes
    }

    // MARK: Kodak

    /// Kodak's binary notes: "KDK INFO" (big-endian) or "KDK" (little-endian), the fields 8 bytes
    /// on (FNumber at 0x1E, ExposureTime at 0x20, ISO at 0x60); or type 3 (byte 12 is 7, big-
    /// endian; ExposureTime at 0x38, FNumber at 0x3C, ISO at 0x4E). FNumber is in hundredths,
    /// ExposureTime in units of 10 µs. exiftool prints these over EXIF's: so does this.
    private static func kodak(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard let head = try source.exactly(at: range.lowerBound, count: min(range.count, 0x62 + 8)) else { return }
        let layout: (base: Int, fNumber: Int, exposure: Int, iso: Int, bigEndian: Bool)
        if head.starts(with: Array("KDK INFO".utf8)) {
            layout = (8, 0x1E, 0x20, 0x60, true)
        } else if head.starts(with: Array("KDK".utf8)) {
            layout = (8, 0x1E, 0x20, 0x60, false)
        } else if head.count > 12, head[12] == 7, !head.starts(with: Array("MM".utf8)), !head.starts(with: Array("II".utf8)),
                  !head.starts(with: Array("AOC".utf8)) {
            layout = (0, 0x3C, 0x38, 0x4E, true)
        } else {
            return
        }
        func number(_ offset: Int, _ width: Int) -> Int? {
            let start = layout.base + offset
            guard start + width <= head.count else { return nil }
            let bytes = head[start..<start + width]
            return (layout.bigEndian ? Array(bytes) : bytes.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        if let hundredths = number(layout.fNumber, 2), hundredths > 0 {
            metadata.fNumber = Double(hundredths) / 100
            metadata.sources["FNumber"] = .makerNotes
        }
        if let units = number(layout.exposure, 4), units > 0 {
            metadata.exposureTime = Double(units) / 1e5
            metadata.sources["ExposureTime"] = .makerNotes
        }
        if metadata.iso == nil, metadata.isoAsWritten == nil, let iso = number(layout.iso, 2) {
            metadata.isoAsWritten = .number(Double(iso))
            if iso > 0, iso < 0xFFFF { metadata.iso = iso }  // 65535: not known
            metadata.sources["ISO"] = .makerNotes
        }
    }

    // MARK: Minolta

    /// Minolta's CameraSettings (0x0003, or the older 0x0001): big-endian 32-bit words, the
    /// exposure time at 9 as 2^((48 − v) / 8) s and the f-number at 10 as 2^((v − 8) / 16).
    /// exiftool gives them lower priority than EXIF's, so they only fill gaps.
    private static func minolta(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard metadata.exposureTime == nil || metadata.fNumber == nil,
              let (entries, bigEndian) = try plainIFD(source, at: range.lowerBound, maker: "Minolta", into: &metadata) else { return }
        let values = Values(entries: entries, bigEndian: bigEndian)
        guard let settings = values.bytes(0x0003) ?? values.bytes(0x0001), settings.count >= 44 else { return }
        func word(_ index: Int) -> Double {
            Double(settings[index * 4..<index * 4 + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        let exposure = pow(2, (48 - word(9)) / 8), fNumber = pow(2, (word(10) - 8) / 16)
        if metadata.exposureTime == nil, exposure.isFinite, exposure > 0, exposure < 1e7 {
            metadata.exposureTime = exposure
            metadata.sources["ExposureTime"] = .makerNotes
        }
        if metadata.fNumber == nil, fNumber.isFinite, fNumber > 0, fNumber < 1e7 {
            metadata.fNumber = fNumber
            metadata.sources["FNumber"] = .makerNotes
        }
    }

    // MARK: Reconyx

    /// Reconyx HyperFire notes: little-endian 16-bit words, the capture time at word 11 as
    /// seconds, minutes, hours, day, month, year (some firmware writes them big-endian). exiftool
    /// gives it lower priority than EXIF's.
    private static func reconyx(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard metadata.dateTimeOriginal == nil, range.count >= 34, let words = try source.exactly(at: range.lowerBound + 22, count: 12) else { return }
        var parts = (0..<6).map { Int(words[$0 * 2]) | Int(words[$0 * 2 + 1]) << 8 }
        if parts[0] & 0xFF00 != 0, parts[0] & 0xFF == 0 { parts = parts.map { $0 >> 8 | ($0 & 0xFF) << 8 } }
        let text = String(format: "%04d:%02d:%02d %02d:%02d:%02d", parts[5], parts[3], parts[4], parts[2], parts[1], parts[0])
        metadata.dateTimeOriginal = text
        metadata.sources["DateTimeOriginal"] = .makerNotes
    }

    // MARK: Phase One

    /// Phase One's notes: "IIII" and a version ending "waR", the directory's offset at 8 (from
    /// the notes' start), there an entry count, 4 bytes, then 16-byte entries (tag, format size,
    /// size, value or offset), little-endian. exiftool prints their ImageWidth/Height over IFD0's.
    private static func phaseOne(_ source: ByteSource, _ range: Range<Int>, into metadata: inout PhotoMetadata) throws {
        guard let note = try source.exactly(at: range.lowerBound, count: range.count) else { return }
        let directory = Int(CRWContainer.le32(note, 8))
        guard directory >= 12, directory <= note.count - 8 else {
            metadata.warnings.append("Phase One maker notes: directory offset \(directory) lies outside them")
            return
        }
        let count = Int(CRWContainer.le32(note, directory))
        guard count >= 2, count <= 300, directory + 8 + 16 * count <= note.count else {
            metadata.warnings.append("Phase One maker notes: \(count) entries do not fit")
            return
        }
        var width: Int?, height: Int?
        for index in 0..<count {
            let entry = directory + 8 + 16 * index
            let tag = CRWContainer.le32(note, entry), size = Int(CRWContainer.le32(note, entry + 8))
            let field = Int(CRWContainer.le32(note, entry + 12))
            switch tag {
            case 0x010C where size == 4: width = field
            case 0x010D where size == 4: height = field
            case 0x0412 where size > 4 && size <= 256 && field <= note.count - size:
                let text = String(decoding: note[field..<field + size].prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if metadata.lensModel == nil, !text.isEmpty {
                    metadata.lensModel = text
                    metadata.sources["LensModel"] = .makerNotes
                }
            default:
                break
            }
        }
        if let width, let height, width > 0, height > 0, width < 1 << 20, height < 1 << 20 {
            metadata.width = width
            metadata.height = height
        }
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

        /// The value's bytes as stored, whatever its type.
        func bytes(_ tag: UInt16) -> [UInt8]? {
            guard let entry = entries.first(where: { $0.tag == tag }) else { return nil }
            guard let pending = entry.pending else { return entry.data }
            return try? pending.source.exactly(at: pending.offset, count: pending.length)
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
