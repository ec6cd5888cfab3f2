import Foundation

/// The one rule for "~" in path options (`--library`, `SHOEBOX_LIBRARY`, `gallery --out`,
/// `fetch --cacert`), as shells apply it to unquoted words: a leading "~" alone or "~/"
/// is the home folder ($HOME, else the user's entry in the password database); a "~"
/// anywhere else ("a/~/b", "~x", "photos~") is an ordinary character: "~x" is the folder
/// "~x" in the current folder, not user x's home.
enum HomeFolderPath {
    static func expand(_ path: String, option: String, environment: [String: String]) throws -> String {
        // Foundation reads a leading "~x" as user x's home (URL(fileURLWithPath:), file
        // reads): "./~x" is the folder named "~x" for it too.
        if path.hasPrefix("~") && !(path == "~" || path.hasPrefix("~/")) { return "./" + path }
        guard path == "~" || path.hasPrefix("~/") else { return path }
        guard let home = homeFolder(environment) else {
            throw UsageError.invalidValue(
                option: option, value: path,
                expected: "a path without a leading '~' (HOME is not set and the user has no home folder)")
        }
        let rest = path.dropFirst()
        let base = home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
        return rest.isEmpty ? base : (base == "/" ? String(rest) : base + rest)
    }

    private static func homeFolder(_ environment: [String: String]) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return home }
        guard let entry = getpwuid(getuid()), let folder = entry.pointee.pw_dir else { return nil }
        let text = String(cString: folder)
        return text.isEmpty ? nil : text
    }
}
