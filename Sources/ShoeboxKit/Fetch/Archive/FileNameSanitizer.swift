import Foundation

/// Turns a URL's last path segment into a safe, portable file name stem:
/// percent-decoded, no separators, no `..`, no control or reserved characters, no
/// invisible format characters (Cf: dropped) or line and paragraph separators, not
/// a Windows device name (CON becomes CON_, aux.tar aux_.tar), at most 100 bytes of
/// UTF-8, in Unicode NFC (the form macOS file systems treat as the same name as NFD:
/// "café" sent decomposed must not become a second name that collides with the first
/// once the library is copied there).
public enum FileNameSanitizer {
    public static let maxBytes = 100

    /// The name stem (without extension) for a URL path, or nil when nothing usable is left.
    public static func stem(fromURLPath path: String) -> String? {
        let segment = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        let decoded = percentDecoded(segment)
        return sanitize(removingExtension(decoded))
    }

    /// The name stem for a file name given as such (a Content-Disposition name): not
    /// percent-decoded, its extension dropped; nil when nothing usable is left.
    public static func stem(fromFileName name: String) -> String? {
        sanitize(removingExtension(name))
    }

    /// Percent-decodes, replacing invalid UTF-8 rather than failing.
    static func percentDecoded(_ text: String) -> String {
        String(decoding: percentDecodedBytes(text), as: UTF8.self)
    }

    /// The bytes `text` percent-encodes; a % not followed by two hex digits stays as it is
    /// ("a%4", "100%", "%zz").
    static func percentDecodedBytes(_ text: String) -> [UInt8] {
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
               let high = HexDigit.value(input[index + 1]), let low = HexDigit.value(input[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return bytes
    }


    static func removingExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        let ext = name[name.index(after: dot)...]
        guard !ext.isEmpty, ext.count <= 5, ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return name }
        return String(name[..<dot])
    }

    public static func sanitize(_ name: String) -> String? {
        // Invisible characters go before composing: "e\u{FEFF}\u{301}" must end as "é" (NFC).
        var visible = String.UnicodeScalarView()
        visible.append(contentsOf: name.unicodeScalars.lazy.filter { !isInvisible($0) })
        var scalars = String.UnicodeScalarView()
        for scalar in String(visible).canonicallyComposed.unicodeScalars {
            // A run of dots becomes one: no name holds "..", even away from its start.
            if scalar == ".", scalars.last == "." { continue }
            scalars.append(isAllowed(scalar) ? scalar : "_")
        }
        var result = trimmed(String(scalars))
        result = trimmed(truncated(result, toBytes: maxBytes))
        guard !result.isEmpty, result.contains(where: { $0 != "_" }) else { return nil }
        guard isWindowsDeviceName(result) else { return result }
        // Windows reads the name up to its first dot: "aux_.tar", not "aux.tar_".
        let base = result.prefix { $0 != "." }
        return trimmed(truncated(base + "_" + result.dropFirst(base.count), toBytes: maxBytes))
    }

    /// CON, NUL, COM1… name devices on Windows, with any extension ("nul.tar.jpg"):
    /// such a file cannot be copied there.
    public static func isWindowsDeviceName(_ stem: String) -> Bool {
        let base = stem.prefix { $0 != "." }.uppercased()
        if ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"].contains(base) { return true }
        guard base.count == 4, base.hasPrefix("COM") || base.hasPrefix("LPT") else { return false }
        return base.last.map { ("0"..."9").contains($0) || "¹²³".contains($0) } ?? false
    }

    /// Drops leading dots, spaces, dashes and combining marks, and trailing dots and spaces,
    /// scalar by scalar: ".\u{301}x" is one Character, so Character-based trimming would keep
    /// a hidden name; and a combining mark right after "/" hides the separator from
    /// Foundation's grapheme-based path functions (the folder of ".../01/\u{301}x.jpg" came
    /// out as ".../05" and publishing failed). Found by the FileNameSanitizer fuzz target.
    static func trimmed(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        while let first = scalars.first, ".- ".unicodeScalars.contains(first) || isCombiningMark(first) { scalars.removeFirst() }
        while let last = scalars.last, ". ".unicodeScalars.contains(last) { scalars.removeLast() }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return scalar.properties.isGraphemeExtend || scalar.value == 0x200D
        }
    }

    /// Format characters (general category Cf), dropped from names: they show as nothing,
    /// so two names that look the same would differ ("IMG\u{FEFF}_1" and "IMG_1"), or, for
    /// the bidirectional controls (U+061C, U+200E/F, U+202A…U+202E, U+2066…U+2069), the
    /// name shows in another order than it is ("photo\u{202E}gpj.exe"). Among them the byte
    /// order mark U+FEFF, the word joiner U+2060, the soft hyphen U+00AD, zero-width
    /// spaces and joiners (U+200B…U+200D) and the tag characters of U+E0000….
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F, 0x80..<0xA0: return false  // control characters
        case 0xFFFD: return false  // replacement for invalid UTF-8
        default: break
        }
        switch scalar.properties.generalCategory {
        case .lineSeparator, .paragraphSeparator: return false  // U+2028, U+2029: line breaks, like \n
        default: break
        }
        return !"/\\:*?\"<>|".unicodeScalars.contains(scalar)
    }

    /// Cuts to at most `limit` UTF-8 bytes without splitting a character.
    static func truncated(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > limit { break }
            result.append(character)
            used += size
        }
        return result
    }
}
