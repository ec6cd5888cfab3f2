/// Percent-encoding as AWS Signature Version 4 defines it ("UriEncode"): the unreserved
/// characters A-Z a-z 0-9 - _ . ~ stay, every other UTF-8 byte becomes %XX (upper-case hex).
/// libcurl 7.88 signs the path and query exactly as they appear in the URL, so the client
/// builds both already in canonical form: keys with `keepSlash` (S3 paths keep '/'), query
/// names and values without (a '/' in a value is %2F), the query sorted by name.
enum S3URIEncoding {
    static func encode(_ text: String, keepSlash: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical query string: pairs sorted by encoded name (then value), each name and
    /// value encoded, "name=value" joined by '&' (a flag such as "uploads" is "uploads=").
    static func canonicalQuery(_ items: [(name: String, value: String)]) -> String {
        items.map { (encode($0.name, keepSlash: false), encode($0.value, keepSlash: false)) }
            .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// Decodes %XX escapes and '+' as a space (S3's `encoding-type=url` listings; AWS writes
    /// a space as '+', and a literal '+' as %2B). Invalid escapes are kept as they are.
    static func decodeListingValue(_ text: String) -> String {
        var out = [UInt8]()
        let bytes = Array(text.utf8)
        var index = 0
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
                index += 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
