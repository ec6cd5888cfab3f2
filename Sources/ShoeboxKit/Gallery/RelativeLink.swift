import Foundation

/// Relative URLs from the gallery folder to files in the library.
public enum RelativeLink {
    /// "a b/c#d.jpg" -> "a%20b/c%23d.jpg": the separators kept, letters, digits and "-._~" as
    /// they are, every other byte of the UTF-8 percent-encoded (so '?', '#', '%', ':' and spaces
    /// in names cannot change a link's meaning). Byte by byte: a gallery encodes some 300,000
    /// links for 100,000 photos.
    public static func encode(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count + 8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The relative path prefix (ending in "/", or empty) that leads from
    /// `folder` to `target`, both absolute; symlinks are resolved first.
    public static func prefix(from folder: String, to target: String) -> String {
        let from = components(of: folder), to = components(of: target)
        var common = 0
        while common < from.count && common < to.count && from[common] == to[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        let parts = ups + to[common...]
        return parts.isEmpty ? "" : parts.joined(separator: "/") + "/"
    }

    private static func components(of path: String) -> [String] {
        let resolved = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        return resolved.split(separator: "/").map(String.init)
    }
}
