import CCurl
import Foundation

/// The time that dates an original, and where it came from. This type owns the rule;
/// fetch (the date folder), reindex, verify and inspect all ask it.
///
/// The photo's own capture time is the first *plausible* of its EXIF DateTimeOriginal,
/// CreateDate (DateTimeDigitized) and DateTime (ModifyDate), in that order and in EXIF's
/// form (see `canonical(_:)`). A photo without one is dated by a fallback: for a download,
/// the server's Last-Modified when plausible, else the download time; for a file reindex
/// finds without a journal entry, the file's modification time.
public struct CaptureDate: Sendable, Equatable {
    /// "YYYY:MM:DD HH:MM:SS" (UTC for a fallback), recorded as the original's `takenAt`.
    public let takenAt: String
    /// Where `takenAt` came from, recorded as the original's `datedBy`.
    public let source: CaptureDateSource

    public init(takenAt: String, source: CaptureDateSource) {
        self.takenAt = takenAt
        self.source = source
    }

    /// The date folder under originals/: "YYYY/MM/DD".
    public var folder: String {
        String(takenAt.prefix(10)).replacingOccurrences(of: ":", with: "/")
    }

    // MARK: The fallback chains

    /// How a downloaded original is dated: EXIF, then the response's Last-Modified, then
    /// the download time.
    public static func forDownload(metadata: PhotoMetadata?, lastModified: String?, downloadedAt: time_t = time(nil)) -> CaptureDate {
        if let date = exif(metadata) { return CaptureDate(takenAt: date, source: .exif) }
        if let date = makerNotes(metadata) { return CaptureDate(takenAt: date, source: .makerNotes) }
        if let date = xmp(metadata) { return CaptureDate(takenAt: date, source: .xmp) }
        if let date = iptc(metadata) { return CaptureDate(takenAt: date, source: .iptc) }
        if let date = rawHeader(metadata) { return CaptureDate(takenAt: date, source: .rawHeader) }
        if let lastModified, let time = lastModifiedTime(lastModified, now: downloadedAt) {
            return CaptureDate(takenAt: Timestamp.exif(time), source: .lastModified)
        }
        return CaptureDate(takenAt: Timestamp.exif(downloadedAt), source: .fetchTime)
    }

    /// How a file found in the library without a journal entry is dated: EXIF, then the
    /// file's modification time.
    public static func forFile(metadata: PhotoMetadata?, modified: time_t) -> CaptureDate {
        if let date = exif(metadata) { return CaptureDate(takenAt: date, source: .exif) }
        if let date = makerNotes(metadata) { return CaptureDate(takenAt: date, source: .makerNotes) }
        if let date = xmp(metadata) { return CaptureDate(takenAt: date, source: .xmp) }
        if let date = iptc(metadata) { return CaptureDate(takenAt: date, source: .iptc) }
        if let date = rawHeader(metadata) { return CaptureDate(takenAt: date, source: .rawHeader) }
        return CaptureDate(takenAt: Timestamp.exif(modified), source: .fileTime)
    }

    // MARK: The original's file time

    /// The modification time a new original's file gets: the response's Last-Modified when it
    /// is plausible (as `wget` and `curl -R` keep it), else the capture time of an EXIF-dated
    /// photo (at its OffsetTimeOriginal when recorded, else read as UTC), else nil: the file
    /// keeps the time it was downloaded. (`import` keeps the source file's time instead.)
    public static func fileTime(lastModified: String?, dated: CaptureDate, offset: String?, now: time_t = time(nil)) -> time_t? {
        if let lastModified, let time = lastModifiedTime(lastModified, now: now) { return time }
        guard dated.source.isCamera else { return nil }
        return seconds(of: dated.takenAt, offset: offset)
    }

    /// "YYYY:MM:DD HH:MM:SS" at `offset` ("+HH:MM"; UTC without one) as seconds since 1970.
    static func seconds(of takenAt: String, offset: String?) -> time_t? {
        let fields = takenAt.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int32($0) }
        guard fields.count == 6 else { return nil }
        var parts = tm()
        parts.tm_year = fields[0] - 1900
        parts.tm_mon = fields[1] - 1
        parts.tm_mday = fields[2]
        parts.tm_hour = fields[3]
        parts.tm_min = fields[4]
        parts.tm_sec = fields[5]
        var time = timegm(&parts)
        if let offset, offset.count == 6, let sign = offset.first, "+-".contains(sign),
           let hours = Int(offset.dropFirst().prefix(2)), let minutes = Int(offset.suffix(2)), hours <= 14, minutes < 60 {
            time -= time_t((sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60))
        }
        return time
    }

    /// The file time of a catalogued original whose bytes are put back (`OriginalPutBack`): the
    /// response's Last-Modified when plausible, else the time it was dated by (capture, server,
    /// file or download time, whichever `datedBy` says), as it had when first stored.
    public static func fileTime(of original: OriginalRecord, lastModified: String?) -> time_t? {
        if let lastModified, let time = lastModifiedTime(lastModified, now: time(nil)) { return time }
        return original.takenAt.flatMap { seconds(of: $0, offset: nil) }
    }

    // MARK: EXIF

    /// The EXIF dates that may date a photo, as written, in the order they are tried:
    /// DateTimeOriginal, CreateDate, DateTime. Absent ones (and those read from XMP) are left out.
    public static func written(in metadata: PhotoMetadata?) -> [String] {
        guard let metadata else { return [] }
        var dates: [String] = []
        for (key, date) in [("DateTimeOriginal", metadata.dateTimeOriginal), ("CreateDate", metadata.createDate),
                            ("ModifyDate", metadata.modifyDate)] {
            if let date, metadata.sources[key] == nil { dates.append(date) }
        }
        return dates
    }

    /// The XMP dates that may date a photo whose EXIF does not, as written (exiftool's form), in
    /// the order they are tried: exif:DateTimeOriginal, xmp:CreateDate, photoshop:DateCreated.
    public static func writtenInXMP(_ metadata: PhotoMetadata?) -> [String] {
        guard let metadata else { return [] }
        var dates: [String] = []
        for (key, date) in [("DateTimeOriginal", metadata.dateTimeOriginal), ("CreateDate", metadata.createDate),
                            ("DateCreated", metadata.dateCreated)] {
            if let date, metadata.sources[key] == .xmp { dates.append(date) }
        }
        return dates
    }

    /// The IPTC record's capture time as exiftool prints its parts, "2019:05:01 10:20:30+02:00"
    /// (the date alone without a TimeCreated); nil without an IPTC DateCreated.
    public static func writtenInIPTC(_ metadata: PhotoMetadata?) -> String? {
        guard let metadata, metadata.sources["DateCreated"] == .iptc, let date = metadata.dateCreated else { return nil }
        guard metadata.sources["TimeCreated"] == .iptc, let time = metadata.timeCreated else { return date }
        return date + " " + time
    }

    /// The capture time an IPTC record gives, in EXIF's form and local time (its zone not
    /// applied, as EXIF's is not); nil when it names no plausible day.
    public static func iptc(_ metadata: PhotoMetadata?) -> String? {
        guard let written = writtenInIPTC(metadata) else { return nil }
        // "YYYY:MM:DD HH:MM:SS" and any zone after it: the zone's digits are not the time's.
        return canonical(String(written.prefix(19)))
    }

    /// The capture time the maker notes give (Reconyx), in EXIF's form; nil when none is plausible.
    public static func makerNotes(_ metadata: PhotoMetadata?) -> String? {
        guard let metadata, metadata.sources["DateTimeOriginal"] == .makerNotes, let date = metadata.dateTimeOriginal else { return nil }
        return canonical(String(date.prefix(19)))
    }

    /// The capture time a camera's own header gives (a raw format's: CRW, X3F, Kyocera RAW; a
    /// JPEG's APP0 CIFF or APP12 Picture Info), in EXIF's form; nil when it names no plausible day.
    public static func rawHeader(_ metadata: PhotoMetadata?) -> String? {
        guard let metadata, [.rawHeader, .pictureInfo].contains(metadata.sources["DateTimeOriginal"]),
              let date = metadata.dateTimeOriginal else { return nil }
        return canonical(String(date.prefix(19)))
    }

    /// The capture time an XMP packet gives, in EXIF's form and local time (the zone the date
    /// names is not applied, as EXIF's is not): the first plausible of `writtenInXMP(_:)` that
    /// names a day; nil when none does.
    public static func xmp(_ metadata: PhotoMetadata?) -> String? {
        for date in writtenInXMP(metadata) {
            if let local = XMPDate(date)?.local, let canonical = canonical(local) { return canonical }
        }
        return nil
    }

    /// The photo's capture time in EXIF's form: the first plausible of `written(in:)`
    /// (cameras with an unset clock write "0000:00:00 00:00:00": the next one is tried);
    /// nil when none is.
    public static func exif(_ metadata: PhotoMetadata?) -> String? {
        // A loop, not `lazy.compactMap(canonical).first`: that runs `canonical` twice on
        // the first plausible date (once to find the start index, once to read it).
        for date in written(in: metadata) {
            if let canonical = canonical(date) { return canonical }
        }
        return nil
    }

    /// An EXIF date as "YYYY:MM:DD HH:MM:SS", also from the "2024-05-01T10:00:00" some
    /// software writes; nil for a day that is not on the calendar (an unset camera
    /// clock's 0000:00:00, February 30) or a year outside 1826...2200. A time that is
    /// missing or not a time of day becomes 00:00:00.
    public static func canonical(_ text: String) -> String? {
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

    // MARK: Last-Modified

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

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
