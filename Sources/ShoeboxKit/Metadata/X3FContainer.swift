import Foundation

/// Sigma/Foveon X3F: "FOVb", a version and a header of 32-bit little-endian words (the pixel
/// size at words 7 and 8, or 10 and 11 from version 4), and a section directory ("SECd") that
/// the file's last 4 bytes point to. Read as exiftool's SigmaRaw tables: the PROP section's
/// UTF-16 name/value pairs (CAMMANUF, CAMMODEL, TIME in seconds since 1970, ISO, SHUTTER,
/// APERTURE, FLENGTH) and, where the camera embedded one, the JpgFromRaw preview (an IMA2
/// section holding a JPEG with EXIF), whose EXIF and size come first as in exiftool's output.
enum X3FContainer {
    static let maximumSections = 64
    /// A PROP section larger than this is not read (real ones are a few KiB).
    static let maximumProperties = 1024 * 1024

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .x3f)
        guard let header = try source.exactly(at: 0, count: 48) else {
            contents.warnings.append("X3F header cut off (file truncated)")
            return contents
        }
        let version = CRWContainer.le32(header, 4) >> 16
        let (widthAt, heightAt) = version >= 4 ? (40, 44) : (28, 32)
        guard let tail = try source.exactly(at: source.size - 4, count: 4) else { return contents }
        let directory = Int(CRWContainer.le32(tail, 0))
        var values = PhotoMetadata()
        if let head = try source.exactly(at: directory, count: 12), head.starts(with: Array("SECd".utf8)) {
            let count = Int(CRWContainer.le32(head, 8))
            guard count <= maximumSections, let table = try source.exactly(at: directory + 12, count: count * 12) else {
                contents.warnings.append("X3F section directory at \(directory) is cut off or absurd (\(count) sections)")
                return contents
            }
            for index in 0..<count {
                let offset = Int(CRWContainer.le32(table, index * 12)), length = Int(CRWContainer.le32(table, index * 12 + 4))
                let name = String(decoding: table[index * 12 + 8..<index * 12 + 12], as: UTF8.self)
                guard offset <= source.size, length <= source.size - offset else {
                    contents.warnings.append("X3F section \(name) (\(length) bytes at \(offset)) lies outside the file")
                    continue
                }
                switch name {
                case "PROP" where length <= maximumProperties:
                    if let data = try source.exactly(at: offset, count: length) {
                        properties(data, into: &values, warnings: &contents.warnings)
                    }
                case "IMA2" where contents.exif == nil && length > 28:
                    // A JPEG preview (version 2.0, type 2, format 18) with EXIF is exiftool's JpgFromRaw.
                    let jpegHeader: [UInt8] = Array("SECi".utf8) + [0, 0, 2, 0, 2, 0, 0, 0, 0x12, 0, 0, 0]
                    guard let section = try source.exactly(at: offset, count: 32), section.starts(with: jpegHeader),
                          Array(section[28..<32]) == [0xFF, 0xD8, 0xFF, 0xE1] else { continue }
                    let jpeg = try JPEGContainer.read(SliceByteSource(base: source, offset: offset + 28, size: length - 28))
                    contents.exif = jpeg.exif
                    if let width = jpeg.width, let height = jpeg.height { contents.setSize(width: width, height: height) }
                    contents.warnings += jpeg.warnings.map { "X3F preview: " + $0 }
                default:
                    break
                }
            }
        } else {
            contents.warnings.append("X3F section directory offset \(directory) does not point to a directory")
        }
        let width = Int(CRWContainer.le32(header, widthAt)), height = Int(CRWContainer.le32(header, heightAt))
        if width < 1 << 20, height < 1 << 20 { contents.setSize(width: width, height: height) }
        if values != PhotoMetadata() { contents.rawHeader = values }
        return contents
    }

    /// The PROP section: "SECp", the entry count (at 8), the character format (0: UTF-16, at 12)
    /// and the character count (at 20); then (name, value) character positions, then the characters.
    static func properties(_ data: [UInt8], into values: inout PhotoMetadata, warnings: inout [String]) {
        guard data.count >= 24, data.starts(with: Array("SECp".utf8)), CRWContainer.le32(data, 12) == 0 else {
            warnings.append("X3F properties section is malformed")
            return
        }
        let entries = Int(CRWContainer.le32(data, 8)), characters = Int(CRWContainer.le32(data, 20))
        let start = 24 + 8 * entries
        guard entries <= 10_000, characters <= data.count, start + 2 * characters <= data.count else {
            warnings.append("X3F properties section is cut off")
            return
        }
        func text(_ position: Int) -> String? {
            guard position < characters else { return nil }
            var units: [UInt16] = []
            var at = start + 2 * position
            while at + 1 < start + 2 * characters {
                let unit = UInt16(data[at]) | UInt16(data[at + 1]) << 8
                if unit == 0 { break }
                units.append(unit)
                at += 2
            }
            return String(decoding: units, as: UTF16.self)
        }
        for index in 0..<entries {
            guard let name = text(Int(CRWContainer.le32(data, 24 + 8 * index))),
                  let value = text(Int(CRWContainer.le32(data, 28 + 8 * index))) else { continue }
            let number = Double(value).flatMap { $0.isFinite && $0 > 0 && $0 < 1e7 ? $0 : nil }
            switch name {
            case "CAMMANUF": values.make = values.make ?? (value.isEmpty ? nil : value)
            case "CAMMODEL": values.model = values.model ?? (value.isEmpty ? nil : value)
            case "ISO": if values.iso == nil, let number { values.iso = Int(number.rounded()); if number != number.rounded() { values.isoAsWritten = .number(number) } }
            case "SHUTTER": values.exposureTime = values.exposureTime ?? number
            case "APERTURE": values.fNumber = values.fNumber ?? number
            case "FLENGTH": values.focalLength = values.focalLength ?? number
            case "TIME":
                guard values.dateTimeOriginal == nil, let seconds = Int(value) else { continue }
                values.dateTimeOriginal = Timestamp.exif(time_t(seconds))
            default: break
            }
        }
    }
}
