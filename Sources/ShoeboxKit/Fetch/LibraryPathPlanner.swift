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
            if let date = canonicalEXIFDate(exif) { return (folder(fromCanonical: date), date, .exif) }
        }
        if let lastModified, let time = lastModifiedTime(lastModified, now: now) {
            return (folder(from: time), Timestamp.exif(time), .lastModified)
        }
        return (folder(from: now), Timestamp.exif(now), .fetchTime)
    }

    /// An EXIF date as "YYYY:MM:DD HH:MM:SS", also from the "2024-05-01T10:00:00" some
    /// software writes; nil for a day that is not on the calendar (an unset camera
    /// clock's 0000:00:00, February 30) or a year outside 1826...2200. A time that is
    /// missing or not a time of day becomes 00:00:00.
    static func canonicalEXIFDate(_ text: String) -> String? {
        let numbers = text.split(whereSeparator: { !("0"..."9").contains($0) }).prefix(6).map { Int($0) ?? -1 }
        guard numbers.count >= 3 else { return nil }
        let (year, month, day) = (numbers[0], numbers[1], numbers[2])
        guard (1826...2200).contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            return nil
        }
        var time = Array(numbers.dropFirst(3)) + Array(repeating: 0, count: 6 - numbers.count)
        if !((0...23).contains(time[0]) && (0...59).contains(time[1]) && (0...60).contains(time[2])) { time = [0, 0, 0] }
        // The year is four digits by the range above; String(format:) costs ~10 µs a call.
        let two = { (value: Int) in (value < 10 ? "0" : "") + "\(value)" }
        return "\(year):\(two(month)):\(two(day)) \(two(time[0])):\(two(time[1])):\(two(time[2]))"
    }

    /// "2024:05:01 10:00:00" (or any form `canonicalEXIFDate` reads) → "2024/05/01".
    static func folder(fromEXIFDate text: String) -> String? {
        canonicalEXIFDate(text).map(folder(fromCanonical:))
    }

    private static func folder(fromCanonical date: String) -> String {
        String(date.prefix(10)).replacingOccurrences(of: ":", with: "/")
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// A Last-Modified date, nil when not plausible: before 1970, more than a day
    /// ahead (RFC 9110 forbids a date in the future), with a year written with
    /// leading zeros, which libcurl reads as two digits ("0050" as 2050), or a day
    /// not on the calendar, which it rolls over (30 Feb as 2 Mar).
    static func lastModifiedTime(_ text: String, now: time_t) -> time_t? {
        var parsed = curl_getdate(text, nil)
        guard parsed > 0, parsed <= now + 86_400 else { return nil }
        // The date's words, without a numeric zone ("-0500"), RFC 850's "06-Nov-94" split up.
        let words = text.split(whereSeparator: { " ,".contains($0) })
            .filter { !($0.count == 5 && "+-".contains($0.first!) && $0.dropFirst().allSatisfy(\.isNumber)) }
            .flatMap { $0.split(separator: "-").map { Substring($0) } }
        let isNumber = { (word: Substring, digits: ClosedRange<Int>) in digits.contains(word.count) && word.allSatisfy(\.isNumber) }
        if words.contains(where: { isNumber($0, 4...4) && $0.first == "0" }) { return nil }
        // The day is the first number of one or two digits in all three HTTP date forms.
        var parts = tm()
        gmtime_r(&parsed, &parts)
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        if let day = words.first(where: { isNumber($0, 1...2) }).flatMap({ Int($0) }),
           let month = words.lazy.compactMap({ months.firstIndex(of: $0.prefix(3).lowercased()) }).first,
           day > daysIn(month: month + 1, year: words.first { isNumber($0, 4...4) }.flatMap { Int($0) } ?? Int(parts.tm_year) + 1900) {
            return nil
        }
        return parsed
    }

    static func folder(from time: time_t) -> String {
        String(Timestamp.exif(time).prefix(10)).replacingOccurrences(of: ":", with: "/")
    }

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
