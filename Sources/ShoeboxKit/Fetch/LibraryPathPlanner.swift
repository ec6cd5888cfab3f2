import CCurl
import Foundation

/// Chooses where a new original goes: `originals/YYYY/MM/DD/NAME.EXT`, dated by
/// capture time (then Last-Modified, then now), named after the URL, made unique.
struct LibraryPathPlanner {
    /// The date folder, the `takenAt` value to record and where it came from.
    static func dateFolder(metadata: PhotoMetadata?, lastModified: String?, now: time_t = time(nil))
        -> (folder: String, takenAt: String, datedBy: CaptureDateSource)
    {
        // Cameras with an unset clock write "0000:00:00 00:00:00": skip to the next candidate.
        let candidates = [metadata?.dateTimeOriginal, metadata?.createDate, metadata?.modifyDate].compactMap { $0 }
        for exif in candidates {
            if let folder = folder(fromEXIFDate: exif) { return (folder, exif, .exif) }
        }
        if let lastModified {
            let parsed = curl_getdate(lastModified, nil)
            if parsed > 0 { return (folder(from: parsed), Timestamp.exif(parsed), .lastModified) }
        }
        return (folder(from: now), Timestamp.exif(now), .fetchTime)
    }

    /// "2024:05:01 10:00:00" → "2024/05/01"; nil for dates that are not plausible.
    static func folder(fromEXIFDate text: String) -> String? {
        let digits = text.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "-" || $0 == "T" })
        guard digits.count >= 3, let year = Int(digits[0]), let month = Int(digits[1]), let day = Int(digits[2]),
              (1826...2200).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        // The year is four digits by the range above; String(format:) costs ~10 µs a call.
        return "\(year)/" + (month < 10 ? "0" : "") + "\(month)/" + (day < 10 ? "0" : "") + "\(day)"
    }

    static func folder(from time: time_t) -> String {
        String(Timestamp.exif(time).prefix(10)).replacingOccurrences(of: ":", with: "/")
    }

    /// The file name stem for a URL, or the first 12 hex digits of the hash.
    static func stem(url: String, sha256: String) -> String {
        if let path = try? URLValidator.validate(url), let stem = FileNameSanitizer.stem(fromURLPath: path) {
            return stem
        }
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
