/// Escaping for text and attribute values in HTML.
public enum HTMLEscaping {
    /// Escapes &, <, >, " and ' (safe in text and in quoted attributes).
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default:
                // Control characters other than tab/newline have no place in a page.
                if character.value < 0x20 && character != "\t" && character != "\n" { result += "\u{FFFD}" }
                else { result.unicodeScalars.append(character) }
            }
        }
        return result
    }
}
