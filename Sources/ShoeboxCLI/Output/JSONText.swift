import ShoeboxKit

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

    /// Text that exiftool -json would print as a number ("1.10", "-3", "2e5") goes out unquoted, as exiftool
    /// does; anything else as a string.
    static func textOrNumber(_ text: String) -> String {
        looksLikeNumber(text) ? text : string(text)
    }

    /// exiftool's test: -?(\d|[1-9]\d{1,14})(\.\d{1,16})?(e[-+]?\d{1,3})?, the whole text.
    static func looksLikeNumber(_ text: String) -> Bool {
        var rest = Substring(text).utf8[...]
        func digits() -> Int {
            let count = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            rest = rest.dropFirst(count)
            return count
        }
        if rest.first == 0x2D { rest = rest.dropFirst() }
        let first = rest.first
        let integer = digits()
        guard integer >= 1, integer <= 15, integer == 1 || first != 0x30 else { return false }
        if rest.first == 0x2E {
            rest = rest.dropFirst()
            guard (1...16).contains(digits()) else { return false }
        }
        if rest.first == 0x65 || rest.first == 0x45 {
            rest = rest.dropFirst()
            if rest.first == 0x2B || rest.first == 0x2D { rest = rest.dropFirst() }
            guard (1...3).contains(digits()) else { return false }
        }
        return rest.isEmpty
    }

    static func number(_ value: Double) -> String {
        value.isFinite ? NumberText.format(value) : "null"
    }

    /// One JSON object on one line, `{"key":value,...}`, in the order given (values already JSON text).
    static func line(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
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
