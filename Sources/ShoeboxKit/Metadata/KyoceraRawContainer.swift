import Foundation

/// Kyocera Contax N Digital RAW: a 156-byte big-endian header whose text fields are stored
/// back to front ("ARECOYK" at 0x19), then raw pixels. Read as exiftool's KyoceraRaw table
/// says: Model (0x0C), Make (0x19), DateTimeOriginal (0x21), ISO as a code (0x34: 13 for ISO
/// 100; exiftool's `-n` prints the code), ExposureTime 2^(v/8)/16000 s (0x38), FNumber
/// 2^(v/16) (0x58), FocalLength in mm (0x70). There is no EXIF and no pixel size.
enum KyoceraRawContainer {
    static let headerSize = 156
    static let signature = Array("ARECOYK".utf8)

    static func isKyoceraRaw(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 0x19 + 7 && Array(prefix[0x19..<0x20]) == signature
    }

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .kyoceraRaw)
        guard let header = try source.exactly(at: 0, count: headerSize) else {
            contents.warnings.append("Kyocera RAW header cut off (file truncated)")
            return contents
        }
        func text(_ offset: Int, _ length: Int) -> String? {
            let field = header[offset..<offset + length]
            let kept = field.prefix { $0 != 0 }
            let value = String(decoding: kept.reversed(), as: UTF8.self).trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        func word(_ offset: Int) -> Int { header[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        var values = PhotoMetadata()
        values.model = text(0x0C, 12)
        values.make = text(0x19, 7)
        values.dateTimeOriginal = text(0x21, 20)
        let isoCode = word(0x34)
        values.isoAsWritten = .number(Double(isoCode))
        values.iso = isoSpeeds[isoCode]
        let exposure = pow(2, Double(word(0x38)) / 8) / 16000, fNumber = pow(2, Double(word(0x58)) / 16)
        if exposure.isFinite, exposure > 0, exposure < 1e7 { values.exposureTime = exposure }
        if fNumber.isFinite, fNumber > 0, fNumber < 1e7 { values.fNumber = fNumber }
        let focal = word(0x70)
        if focal > 0 { values.focalLength = Double(focal) }
        contents.rawHeader = values
        return contents
    }

    /// The ISO codes exiftool's table names.
    static let isoSpeeds: [Int: Int] = [7: 25, 8: 32, 9: 40, 10: 50, 11: 64, 12: 80, 13: 100, 14: 125, 15: 160,
                                        16: 200, 17: 250, 18: 320, 19: 400]
}
