/// An XMP date ("2024-05-01T10:20:30.5+02:00", "2024-05-01T10:20Z", "2024-05-01", "2024")
/// in the two forms Shoebox uses: exiftool's (`-n`: "2024:05:01 10:20:30.5+02:00", the
/// dashes of the date made colons, the "T" a space, the rest as written) for `inspect`,
/// and the local capture time "YYYY:MM:DD HH:MM:SS" with its offset for dating.
struct XMPDate: Equatable {
    var year: Int, month: Int?, day: Int?
    var hour: Int?, minute: Int?, second: Int?
    /// "+HH:MM" ("Z" is "+00:00"); nil when the date names no zone.
    var offset: String?

    /// Parses the XMP form, or exiftool's form of it; nil when it is neither.
    init?(_ text: String) {
        let characters = Array(text.trimmingSpaces.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= characters.count else { return nil }
            var value = 0
            for character in characters[index..<(index + digits)] {
                guard (0x30...0x39).contains(character) else { return nil }
                value = value * 10 + Int(character - 0x30)
            }
            index += digits
            return value
        }
        func take(_ separators: [UInt8]) -> Bool {
            guard index < characters.count, separators.contains(characters[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4) else { return nil }
        self.year = year
        if take([0x2D, 0x3A]) {  // - or :
            guard let month = number(2) else { return nil }
            self.month = month
            if take([0x2D, 0x3A]) {
                guard let day = number(2) else { return nil }
                self.day = day
                if take([0x54, 0x20]) {  // T or space
                    guard let hour = number(2), take([0x3A]), let minute = number(2) else { return nil }
                    self.hour = hour
                    self.minute = minute
                    if take([0x3A]) {
                        guard let second = number(2) else { return nil }
                        self.second = second
                        if take([0x2E, 0x2C]) {  // fraction of a second: skipped
                            while index < characters.count, (0x30...0x39).contains(characters[index]) { index += 1 }
                        }
                    }
                    if take([0x5A]) {  // Z
                        offset = "+00:00"
                    } else if index < characters.count, characters[index] == 0x2B || characters[index] == 0x2D {
                        let sign = characters[index] == 0x2D ? "-" : "+"
                        index += 1
                        guard let hours = number(2), take([0x3A]), let minutes = number(2) else { return nil }
                        offset = sign + (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
                    }
                }
            }
        }
        guard index == characters.count else { return nil }
    }

    /// exiftool's `-n` form of an XMP date: nil when `text` is not an XMP date.
    static func exiftoolForm(_ text: String) -> String? {
        guard XMPDate(text) != nil else { return nil }
        var characters = Array(text.trimmingSpaces)
        for index in [4, 7] where index < characters.count && characters[index] == "-" { characters[index] = ":" }
        if characters.count > 10, characters[10] == "T" { characters[10] = " " }
        return String(characters)
    }

    /// The local time as EXIF writes it, "YYYY:MM:DD HH:MM:SS" (missing parts as the first
    /// of the month, the day, 00:00:00), for `CaptureDate`; nil without a day of the month
    /// (a bare year or month says too little to file a photo under a day).
    var local: String? {
        guard let month, let day else { return nil }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year):\(two(month)):\(two(day)) \(two(hour ?? 0)):\(two(minute ?? 0)):\(two(second ?? 0))"
    }
}
