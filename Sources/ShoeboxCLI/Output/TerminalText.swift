/// Text from outside (list lines, URLs, server messages, EXIF strings) made safe
/// to print on a terminal: control characters, which could move the cursor,
/// recolour or retitle the terminal, are shown as \xNN instead.
enum TerminalText {
    /// Line breaks and tabs stay (multi-line messages).
    static func visible(_ text: String) -> String {
        escaping(text, where: isControl)
    }

    /// Line breaks and tabs are escaped too: for a value printed on a line of its own kind
    /// (`missing PATH: …`, `  Software  VALUE`), where a line break in a file name or an EXIF
    /// string would forge another line.
    static func oneLine(_ text: String) -> String {
        escaping(text) { $0.value == 0x09 || $0.value == 0x0A || isControl($0) }
    }

    private static func escaping(_ text: String, where isControl: (Unicode.Scalar) -> Bool) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0 controls but tab and line feed, DEL, and C1 controls (U+0080–U+009F).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        default: return false
        }
    }
}
