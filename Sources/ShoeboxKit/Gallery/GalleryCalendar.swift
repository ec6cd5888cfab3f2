/// Names of months and weekdays for the gallery's headings (English, as the rest of the page).
enum GalleryCalendar {
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                         "September", "October", "November", "December"]
    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// The parts of "2024-05-01"; nil unless the month and day are in range.
    static func date(_ day: String) -> (year: Int, month: Int, day: Int)? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
        return (parts[0], parts[1], parts[2])
    }

    static func monthName(_ month: Int) -> String { (1...12).contains(month) ? months[month - 1] : "Month \(month)" }

    /// "May 2024" for "2024-05".
    static func monthTitle(_ month: String) -> String {
        let parts = month.split(separator: "-")
        guard parts.count == 2, let number = Int(parts[1]) else { return month }
        return monthName(number) + " " + parts[0]
    }

    /// The day of the week of a Gregorian date (Sakamoto's method).
    static func weekday(_ date: (year: Int, month: Int, day: Int)) -> String {
        let offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        let year = date.month < 3 ? date.year - 1 : date.year
        let index = (year + year / 4 - year / 100 + year / 400 + offsets[date.month - 1] + date.day) % 7
        return weekdays[(index + 7) % 7]
    }
}
