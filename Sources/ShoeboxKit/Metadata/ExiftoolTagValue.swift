import Foundation

/// The value `inspect --all` lists for a tag whose raw EXIF value is not what
/// `exiftool -n` prints under the same name: exiftool converts a few tags even
/// with `-n` (its ValueConv). `inspect --all --json` prints every tag under
/// exiftool's names, so such a tag carries exiftool's value, or is left out
/// when there is no faithful one; never the raw value.
///
/// Each conversion follows exiftool 12's tag tables (Exif.pm, GPS.pm): APEX
/// shutter speed to seconds (2^-v) and APEX apertures to f-numbers (2^(v/2)),
/// GPSTimeStamp to "HH:MM:SS" with its fractional seconds, ComponentsConfiguration
/// to its bytes as numbers, the Windows XP tags to text from UCS-2 little-endian.
/// exiftool rounds a rational to 10 significant digits before converting it; so
/// does this.
enum ExiftoolTagValue {
    enum Conversion: Equatable {
        /// exiftool -n prints the raw value.
        case raw
        /// exiftool -n prints this instead: text and numbers as in `ExifTag`.
        case converted(text: String, numbers: [Double])
        /// There is no value exiftool would print the same (a zero denominator, a type exiftool reinterprets).
        case leftOut
    }

    /// How the tag `tag` of IFD `group` (stored with EXIF type `format` when known) is listed.
    static func conversion(group: String, tag: UInt16, format: UInt32?, value: ExifValue) -> Conversion {
        // GPS tag numbers collide with other IFDs' (0x0007 is an Interop tag too).
        if group == "GPS" { return tag == 0x0007 ? gpsTimeStamp(value) : .raw }
        switch tag {
        case 0x9201: return shutterSpeed(value)
        case 0x9202, 0x9205: return fNumber(apex: value)
        case 0x9101: return componentsConfiguration(value, format: format)
        case 0x9C9B...0x9C9F: return windowsText(value, format: format)
        default: return .raw
        }
    }

    /// ShutterSpeedValue: exiftool reads it as a signed rational whatever the stored type says
    /// (some cameras store it unsigned), and prints 0 for a value it cannot use (a zero
    /// denominator, |v| ≥ 100).
    private static func shutterSpeed(_ value: ExifValue) -> Conversion {
        guard case .rationals(let pairs) = value, pairs.count == 1 else { return .leftOut }
        let numerator = Int64(Int32(truncatingIfNeeded: pairs[0].0)), denominator = Int64(Int32(truncatingIfNeeded: pairs[0].1))
        var seconds = 0.0
        if denominator != 0 {
            let apex = roundedLikeExiftool(Double(numerator) / Double(denominator))
            if abs(apex) < 100 { seconds = pow(2, -apex) }
        }
        return number(seconds)
    }

    /// ApertureValue and MaxApertureValue: f-number 2^(v/2).
    private static func fNumber(apex value: ExifValue) -> Conversion {
        guard let apex = single(value) else { return .leftOut }
        return number(pow(2, apex / 2))
    }

    /// exiftool reads the four bytes as numbers ("1 2 3 0"), not as hexadecimal.
    private static func componentsConfiguration(_ value: ExifValue, format: UInt32?) -> Conversion {
        guard let bytes = bytes(value, format: format), !bytes.isEmpty else { return .leftOut }
        return .converted(text: bytes.map(String.init).joined(separator: " "), numbers: bytes.map(Double.init))
    }

    /// XPTitle, XPComment, XPAuthor, XPKeywords, XPSubject: UCS-2 little-endian text (Windows
    /// writes UTF-16, so pairs are decoded as such), up to the first NUL.
    private static func windowsText(_ value: ExifValue, format: UInt32?) -> Conversion {
        guard let bytes = bytes(value, format: format) else { return .leftOut }
        var units = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        if let end = units.firstIndex(of: 0) { units.removeSubrange(end...) }
        return .converted(text: String(decoding: units, as: UTF16.self), numbers: [])
    }

    /// GPSTimeStamp: hours, minutes and seconds (any fractional) as one time of day,
    /// "HH:MM:SS" with the seconds' decimals to nine places, trailing zeros dropped, as
    /// exiftool's ConvertTimeStamp does.
    private static func gpsTimeStamp(_ value: ExifValue) -> Conversion {
        guard case .rationals(let pairs) = value, !pairs.isEmpty, pairs.allSatisfy({ $0.1 != 0 }) else { return .leftOut }
        let parts = pairs.prefix(3).map { roundedLikeExiftool(Double($0.0) / Double($0.1)) }
        let total = parts.enumerated().reduce(0.0) { sum, part in sum + part.element * [3600.0, 60, 1][part.offset] }
        guard total.isFinite, total >= 0, total < 1e15 else { return .leftOut }
        var hours = Int(total / 3600)
        var rest = total - Double(hours) * 3600
        var minutes = Int(rest / 60)
        rest -= Double(minutes) * 60
        var seconds = String(format: "%012.9f", rest)
        if (Double(seconds) ?? 0) >= 60 {
            seconds = "00"
            minutes += 1
            if minutes >= 60 { minutes -= 60; hours += 1 }
        } else {
            // exiftool's s/\.?0+$//: the decimals' trailing zeros, then the point.
            if let point = seconds.firstIndex(of: ".") {
                while seconds.last == "0", seconds.index(before: seconds.endIndex) > point { seconds.removeLast() }
                if seconds.last == "." { seconds.removeLast() }
            }
        }
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return .converted(text: twoDigits(hours) + ":" + twoDigits(minutes) + ":" + seconds, numbers: [])
    }

    /// One number: a rational rounded as exiftool rounds it, or an integer or real; nil for a
    /// zero denominator or more than one value.
    private static func single(_ value: ExifValue) -> Double? {
        switch value {
        case .rationals(let pairs) where pairs.count == 1 && pairs[0].1 != 0:
            return roundedLikeExiftool(Double(pairs[0].0) / Double(pairs[0].1))
        case .integers(let values) where values.count == 1:
            return Double(values[0])
        case .reals(let values) where values.count == 1 && values[0].isFinite:
            return values[0]
        default:
            return nil
        }
    }

    /// The stored bytes of a BYTE or UNDEFINED value (exiftool reads these tags as bytes).
    private static func bytes(_ value: ExifValue, format: UInt32?) -> [UInt8]? {
        switch value {
        case .bytes(let bytes):
            return bytes
        case .integers(let values) where format == 1:
            return values.map { UInt8(truncatingIfNeeded: $0) }
        default:
            return nil
        }
    }

    private static func number(_ value: Double) -> Conversion {
        value.isFinite ? .converted(text: NumberText.format(value), numbers: [value]) : .leftOut
    }

    /// exiftool's RoundFloat(value, 10): sprintf("%.10g").
    private static func roundedLikeExiftool(_ value: Double) -> Double {
        Double(String(format: "%.10g", value)) ?? value
    }
}
