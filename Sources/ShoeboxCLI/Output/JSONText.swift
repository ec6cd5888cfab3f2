/// Minimal JSON writing for data printed on stdout: strings escaped per RFC 8259,
/// numbers as exiftool -n prints them (non-finite numbers become null).
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func number(_ value: Double) -> String {
        value.isFinite ? NumberText.format(value) : "null"
    }

    /// One JSON object from ordered key/value pairs whose values are already JSON text.
    static func object(_ members: [(String, String)], indent: String = "  ") -> String {
        guard !members.isEmpty else { return "{}" }
        let body = members.map { "\(indent)\(string($0.0)): \($0.1)" }.joined(separator: ",\n")
        return "{\n" + body + "\n}"
    }
}

import ShoeboxKit
