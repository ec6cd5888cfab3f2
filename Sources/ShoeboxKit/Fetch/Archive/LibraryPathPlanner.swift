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

    /// The first of NAME.EXT, NAME-2.EXT, NAME-3.EXT… in `folder` that `isTaken` does not claim.
    static func uniquePath(folder: String, stem: String, fileExtension: String, isTaken: (String) throws -> Bool) rethrows -> String {
        let base = LibraryLayout.originalsFolder + "/" + folder + "/"
        var candidate = base + stem + "." + fileExtension
        var counter = 2
        while try isTaken(candidate) {
            candidate = base + stem + "-\(counter)." + fileExtension
            counter += 1
        }
        return candidate
    }
}
