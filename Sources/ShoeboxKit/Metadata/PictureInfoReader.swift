import Foundation

/// A JPEG's APP12 "Picture Info" segment, text of "[section]" headers and "key=value" pairs
/// written by some older cameras, read as exiftool's APP12 table: TimeDate (seconds since 1970,
/// or the date as written) as DateTimeOriginal, Shutter or shtr (microseconds) as ExposureTime,
/// FNumber (after any leading letters, "F2.8"). exiftool gives these lower priority than EXIF's,
/// so they only fill gaps; the capture time dates the photo as a camera header's does.
enum PictureInfoReader {
    static func values(_ segment: [UInt8]) -> PhotoMetadata {
        var values = PhotoMetadata()
        let separators: Set<UInt8> = [0x0A, 0x0D, 0x00]
        for line in segment.split(whereSeparator: { separators.contains($0) }) {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")), line.allSatisfy({ (0x20...0x7E).contains($0) }) else { continue }
            let key = String(decoding: line[line.startIndex..<equals], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            let value = String(decoding: line[(equals + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { continue }
            switch key {
            case "TimeDate" where values.dateTimeOriginal == nil:
                if let seconds = Int(value), seconds >= 0, seconds < 1 << 40 {
                    values.dateTimeOriginal = Timestamp.exif(time_t(seconds))
                } else if !value.allSatisfy(\.isNumber) {
                    values.dateTimeOriginal = value
                }
            case "Shutter", "shtr":
                if values.exposureTime == nil, let micro = Double(value), micro > 0, micro < 1e13 { values.exposureTime = micro * 1e-6 }
            case "FNumber":
                let number = value.drop { $0.isLetter || $0 == " " }
                if values.fNumber == nil, let f = Double(number), f > 0, f < 1e7 { values.fNumber = f }
            default:
                break
            }
        }
        return values
    }
}
