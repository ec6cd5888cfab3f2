import Foundation

/// UTC timestamps in the formats the catalog and EXIF use.
public enum Timestamp {
    /// ISO 8601 UTC with seconds, e.g. "2026-11-30T01:02:03Z".
    public static func iso8601(_ time: time_t = time(nil)) -> String {
        format(time, "%Y-%m-%dT%H:%M:%SZ")
    }

    /// EXIF style, e.g. "2026:11:30 01:02:03" (UTC).
    public static func exif(_ time: time_t) -> String {
        format(time, "%Y:%m:%d %H:%M:%S")
    }

    /// HTTP's date form (RFC 9110 IMF-fixdate), e.g. "Mon, 30 Nov 2026 01:02:03 GMT": how a
    /// local file's time is recorded beside downloads' Last-Modified. (C locale names.)
    public static func httpDate(_ time: time_t) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var t = time
        var parts = tm()
        gmtime_r(&t, &parts)
        return days[Int(parts.tm_wday)] + ", " + String(format: "%02d ", parts.tm_mday) + months[Int(parts.tm_mon)]
            + " " + format(time, "%Y %H:%M:%S") + " GMT"
    }

    /// For names: "20261130T010203Z" (UTC), sorting as time does.
    public static func compact(_ time: time_t = time(nil)) -> String {
        format(time, "%Y%m%dT%H%M%SZ")
    }

    private static func format(_ time: time_t, _ pattern: String) -> String {
        var t = time
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [Int8](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
