import Foundation

/// Chooses where a new original goes: `originals/YYYY/MM/DD/NAME.EXT`, in the date
/// folder `CaptureDate.forDownload` gives, named after the URL, made unique.
struct LibraryPathPlanner {
    /// The file name stem for a URL: its last path segment's, or, when that is no name
    /// (see ContentDispositionName.urlNameIsGeneric), the response's Content-Disposition
    /// file name's (as `wget --content-disposition` and `curl -J` do); else the first 12
    /// hex digits of the hash.
    static func stem(url: String, sha256: String, contentDisposition: String? = nil) -> String {
        let path = try? URLValidator.validate(url)
        if let path, !ContentDispositionName.urlNameIsGeneric(path), let stem = FileNameSanitizer.stem(fromURLPath: path) {
            return stem
        }
        if let header = contentDisposition, let name = ContentDispositionName.fileName(header),
           let stem = FileNameSanitizer.stem(fromFileName: name) {
            return stem
        }
        if let path, let stem = FileNameSanitizer.stem(fromURLPath: path) { return stem }
        return String(sha256.prefix(12))
    }

    /// The file name stem for a local file (`import`): its own name's, else the first 12 hex
    /// digits of the hash.
    static func stem(fileName path: String, sha256: String) -> String {
        FileNameSanitizer.stem(fromFileName: String(path.split(separator: "/").last ?? "")) ?? String(sha256.prefix(12))
    }

    /// The `choice`th name for a new original in `folder`: NAME.EXT first, then NAME-2.EXT,
    /// NAME-3.EXT… (the next is taken when a name is: see `Archiver`).
    static func candidate(folder: String, stem: String, fileExtension: String, choice: Int) -> String {
        LibraryLayout.originalsFolder + "/" + folder + "/" + stem + (choice > 1 ? "-\(choice)" : "") + "." + fileExtension
    }
}
