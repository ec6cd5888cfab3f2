import Foundation

/// Relative URLs from the gallery folder to files in the library.
public enum RelativeLink {
    /// Path segments kept as they are; everything else is percent-encoded
    /// (so '?', '#', '%', ':' and spaces in names cannot change a link's meaning).
    private static let unreserved = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// "a b/c#d.jpg" -> "a%20b/c%23d.jpg".
    public static func encode(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
            .joined(separator: "/")
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
