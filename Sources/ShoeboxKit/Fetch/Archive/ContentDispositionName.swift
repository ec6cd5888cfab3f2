/// The file name a response's Content-Disposition header suggests (RFC 6266), and when
/// fetch names an original after it instead of after its URL.
///
/// `filename*` (RFC 8187: `UTF-8''Tuscany%202008.jpg`, or ISO-8859-1) wins over
/// `filename` (a quoted string or a token). Only the name's last component is kept
/// (`../../etc/passwd` is `passwd`, `C:\x\y.jpg` is `y.jpg`); FileNameSanitizer then
/// makes it safe like any other name.
public enum ContentDispositionName {
    /// The file name the header suggests, unsanitized; nil when it names none.
    public static func fileName(_ header: String) -> String? {
        let parameters = self.parameters(header)
        let extended = parameters["filename*"].flatMap(decodeExtended)
        guard let name = extended ?? parameters["filename"] else { return nil }
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        return last.isEmpty ? nil : last
    }

    /// Whether a URL's path ends in no name worth keeping, so that a Content-Disposition
    /// name is used instead: an empty last segment ("/", "/photos/"); a script ("get.php",
    /// "download.aspx", "image.cgi"); a segment without extension that is only digits
    /// ("/photos/4711") or a generic word ("download", "image", "file", "get", "view",
    /// "attachment"…); or one that sanitizes to nothing. "IMG_0001", "Tuscany.jpg" or
    /// "photo-21" are names.
    public static func urlNameIsGeneric(_ urlPath: String) -> Bool {
        let segment = FileNameSanitizer.percentDecoded(
            urlPath.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? "")
        let stem = FileNameSanitizer.removingExtension(segment)
        guard FileNameSanitizer.sanitize(stem) != nil else { return true }
        if stem != segment {
            let ext = segment.dropFirst(stem.count + 1).lowercased()
            return scriptExtensions.contains(ext)
        }
        let word = segment.lowercased()
        return genericWords.contains(word) || word.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static let scriptExtensions: Set<String> = ["php", "php3", "php5", "asp", "aspx", "ashx", "axd", "cgi", "jsp", "jspx",
                                                "pl", "py", "rb", "do", "action", "cfm", "dll", "exe"]
    static let genericWords: Set<String> = [
        "download", "downloads", "dl", "get", "getfile", "getimage", "fetch", "file", "files", "image", "images", "img",
        "photo", "photos", "picture", "pictures", "pic", "media", "attachment", "attachments", "view", "show", "display",
        "raw", "original", "orig", "full", "content", "data", "blob", "object", "asset", "assets", "index", "default",
        "api", "export", "open", "serve", "thumb", "preview",
    ]

    /// The header's parameters by lower-cased name, first occurrence kept; quoted strings unescaped.
    static func parameters(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        var scalars = Array(header.unicodeScalars)[...]
        // The disposition type ("attachment", "inline") comes first.
        scalars = scalars.drop { $0 != ";" }
        while !scalars.isEmpty {
            scalars = scalars.drop { $0 == ";" || $0 == " " || $0 == "\t" }
            let name = String(String.UnicodeScalarView(scalars.prefix { $0 != "=" && $0 != ";" }))
            scalars = scalars.dropFirst(name.unicodeScalars.count)
            guard scalars.first == "=" else { continue }
            scalars = scalars.dropFirst().drop { $0 == " " || $0 == "\t" }
            var value = String.UnicodeScalarView()
            let quoted = scalars.first == "\""
            if quoted {
                scalars = scalars.dropFirst()
                while let scalar = scalars.first, scalar != "\"" {
                    scalars = scalars.dropFirst()
                    if scalar == "\\", let escaped = scalars.first {
                        value.append(escaped)
                        scalars = scalars.dropFirst()
                    } else {
                        value.append(scalar)
                    }
                }
                scalars = scalars.dropFirst()
                scalars = scalars.drop { $0 != ";" }
            } else {
                value.append(contentsOf: scalars.prefix { $0 != ";" })
                scalars = scalars.drop { $0 != ";" }
            }
            let key = name.trimmingWhitespace().lowercased()
            if !key.isEmpty, result[key] == nil {
                result[key] = quoted ? String(value) : String(value).trimmingWhitespace()
            }
        }
        return result
    }

    /// RFC 8187's `charset'language'percent-encoded`, for the charsets it requires (UTF-8, ISO-8859-1).
    static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let bytes = FileNameSanitizer.percentDecodedBytes(String(parts[2]))
        switch parts[0].lowercased() {
        case "utf-8": return String(decoding: bytes, as: UTF8.self)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }
}
