/// Minimal JSON writing for data printed on stdout: strings escaped per RFC 8259,
/// numbers as exiftool -n prints them (non-finite numbers become null).
enum JSONText {
    static func string(_ text: String) -> String {
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
            return "\"" + text + "\""  // nothing to escape: the common case
        }
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
        var out = "{\n"
        out.reserveCapacity(members.reduce(4) { $0 + $1.0.utf8.count + $1.1.utf8.count + 8 })
        for (index, member) in members.enumerated() {
            out += indent
            out += string(member.0)
            out += ": "
            out += member.1
            out += index == members.count - 1 ? "\n" : ",\n"
        }
        return out + "}"
    }
}

import ShoeboxKit
