import Foundation

/// Decimal text for numbers as exiftool -n prints them: at most 15 significant
/// digits (Perl's default), no trailing ".0", so 151.2153 stays 151.2153.
public enum NumberText {
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        let shortest = value.description  // shortest text that reads back exactly
        if !shortest.utf8.contains(UInt8(ascii: "e")), shortest.utf8.lazy.filter({ $0 >= 0x30 && $0 <= 0x39 }).count <= 15 { return shortest }
        return PrintfText.double("%.15g", value)
    }
}
