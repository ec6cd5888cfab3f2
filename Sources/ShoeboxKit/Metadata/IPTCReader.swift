import CIPTC

/// Fills the capture date a photo's EXIF and XMP leave out from its IPTC record (the
/// Photoshop 3.0 resource block of a JPEG's APP13 segment), read with libiptcdata:
/// DateCreated (2:55) and TimeCreated (2:60), in exiftool's `-n` form ("2019:05:01",
/// "10:20:30+02:00"), marked with their source (`PhotoMetadata.sources`).
enum IPTCReader {
    /// A resource block larger than this is not read (one APP13 segment holds at most 64 KiB).
    static let maximumBlock = 1024 * 1024

    /// Finds the IPTC record in `photoshop` (an APP13 payload, "Photoshop 3.0\0" then 8BIM
    /// resources) and fills `metadata`'s missing values from it. Returns the record's own
    /// DateCreated and TimeCreated joined (exiftool's Composite:DateTimeCreated), when it has both,
    /// even where XMP already gave a DateCreated.
    @discardableResult
    static func merge(_ photoshop: [UInt8], into metadata: inout PhotoMetadata) -> String? {
        guard photoshop.count <= maximumBlock else { return nil }
        return photoshop.withUnsafeBufferPointer { bytes -> String? in
            guard let base = bytes.baseAddress else { return nil }
            var length: UInt32 = 0
            let offset = iptc_jpeg_ps3_find_iptc(base, UInt32(bytes.count), &length)
            guard offset > 0 else {
                if offset < 0 { metadata.warnings.append("Photoshop resource block (APP13) is malformed; its IPTC was not read") }
                return nil
            }
            guard Int(offset) + Int(length) <= bytes.count, length > 0,
                  let data = iptc_data_new_from_data(base + Int(offset), length) else {
                metadata.warnings.append("IPTC record is malformed; not read")
                return nil
            }
            defer { iptc_data_unref(data) }
            let date = text(data, IPTC_TAG_DATE_CREATED).flatMap(dateForm)
            let time = text(data, IPTC_TAG_TIME_CREATED).flatMap(timeForm)
            if metadata.dateCreated == nil, let date {
                metadata.dateCreated = date
                metadata.sources["DateCreated"] = .iptc
            }
            if metadata.timeCreated == nil, let time {
                metadata.timeCreated = time
                metadata.sources["TimeCreated"] = .iptc
            }
            guard let date, let time else { return nil }
            return date + " " + time
        }
    }

    /// exiftool's Composite:DateTimeOriginal: without a DateTimeOriginal anywhere, the IPTC
    /// record's DateCreated and TimeCreated joined (`iptcDateTime`, what `merge` returns), else
    /// DateCreated and TimeCreated from wherever they came ("2019:05:01 10:20:30+02:00"), marked
    /// with DateCreated's source. (exiftool would also join an XMP DateCreated that has its own
    /// time to a TimeCreated, giving two times; such a date is left alone here.)
    static func composeDateTimeOriginal(_ metadata: inout PhotoMetadata, iptcDateTime: String?) {
        guard metadata.dateTimeOriginal == nil else { return }
        if let iptcDateTime {
            metadata.dateTimeOriginal = iptcDateTime
            metadata.sources["DateTimeOriginal"] = .iptc
            return
        }
        guard let date = metadata.dateCreated, !date.contains(" "), let time = metadata.timeCreated else { return }
        metadata.dateTimeOriginal = date + " " + time
        metadata.sources["DateTimeOriginal"] = metadata.sources["DateCreated"] ?? .iptc
    }

    /// The raw bytes of the first record-2 dataset with `tag`, as text.
    private static func text(_ data: UnsafeMutablePointer<IptcData>, _ tag: IptcTag) -> String? {
        // libiptcdata hands the dataset over with a reference taken for the caller.
        guard let dataset = iptc_data_get_dataset(data, IPTC_RECORD_APP_2, tag) else { return nil }
        defer { iptc_dataset_unref(dataset) }
        guard let bytes = dataset.pointee.data, dataset.pointee.size > 0, dataset.pointee.size <= 64 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(dataset.pointee.size)), as: UTF8.self)
    }

    /// IPTC's CCYYMMDD as exiftool prints it, "CCYY:MM:DD"; nil unless eight digits.
    static func dateForm(_ text: String) -> String? {
        let digits = Array(text.utf8)
        guard digits.count == 8, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let string = String(decoding: digits, as: UTF8.self)
        return string.prefix(4) + ":" + string.dropFirst(4).prefix(2) + ":" + string.suffix(2)
    }

    /// IPTC's HHMMSS±HHMM (the zone optional) as exiftool prints it, "HH:MM:SS+HH:MM".
    static func timeForm(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> String? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return String(decoding: bytes[range], as: UTF8.self)
        }
        guard let hours = digits(0..<2), let minutes = digits(2..<4), let seconds = digits(4..<6) else { return nil }
        let time = hours + ":" + minutes + ":" + seconds
        if bytes.count == 6 { return time }
        guard bytes.count == 11, bytes[6] == UInt8(ascii: "+") || bytes[6] == UInt8(ascii: "-"),
              let zoneHours = digits(7..<9), let zoneMinutes = digits(9..<11) else { return nil }
        return time + String(UnicodeScalar(bytes[6])) + zoneHours + ":" + zoneMinutes
    }
}
