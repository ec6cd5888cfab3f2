/// What a file that is not imported is, told from its name before any byte is read (junk
/// a camera, a phone or an operating system leaves beside photos), or from its bytes.
enum ImportFileKind {
    static let systemFiles: Set<String> = [".ds_store", "thumbs.db", "desktop.ini", "ehthumbs.db", ".picasa.ini", "picasa.ini", ".nomedia"]
    static let videos: Set<String> = ["mov", "mp4", "m4v", "avi", "mts", "m2ts", "3gp", "mkv", "wmv", "mpg", "mpeg", "webm", "lrv"]
    static let sidecars: Set<String> = ["xmp", "aae", "thm", "json", "xml", "pp3", "dop", "on1", "txt", "ini", "md5", "sha256"]

    /// "system file" for a name known to be none of the user's photos (nil otherwise).
    static func junk(name: String) -> String? {
        let lower = name.lowercased()
        if systemFiles.contains(lower) || lower.hasPrefix("._") { return "system file" }
        return nil
    }

    /// What a file whose bytes are no image is, by its extension.
    static func notAPhoto(name: String) -> String {
        let ext = name.split(separator: ".").count > 1 ? String(name.split(separator: ".").last!).lowercased() : ""
        if videos.contains(ext) { return "video" }
        if sidecars.contains(ext) { return "sidecar" }
        return "not an image"
    }
}
