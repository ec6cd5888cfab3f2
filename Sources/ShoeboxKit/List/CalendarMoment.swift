/// A date and time of day as a user writes it on the command line (`2024-05-01`,
/// `2024-05`, `2024`, `2024-05-01T10:30:00`), with no time zone: compared with the catalog's
/// times as written (capture times are the camera's local time; `added_at` is UTC).
///
/// A bound given to the day (or month, or year) covers all of it: `--until 2024-05-01`
/// includes the whole of that day, so the exclusive upper bound is the start of the next.
public struct CalendarMoment: Sendable, Equatable, Comparable {
    public var year: Int, month: Int, day: Int
    public var hour: Int, minute: Int, second: Int
    /// How much the text named: a year, a month, a day or one second.
    public var precision: Precision

    public enum Precision: Int, Sendable, Comparable {
        case year, month, day, second
        public static func < (a: Precision, b: Precision) -> Bool { a.rawValue < b.rawValue }
    }

    /// The forms accepted, for messages.
    public static let accepted = "use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (or YYYY-MM, YYYY)"

    /// Parses `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]` (a space may stand
    /// for the T); nil for anything else, or a day that is not on the calendar.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ (0x30...0x39).contains(bytes[$0]) }) else { return nil }
            return range.reduce(0) { $0 * 10 + Int(bytes[$1] - 0x30) }
        }
        func byte(_ index: Int, _ character: Character) -> Bool { index < bytes.count && bytes[index] == character.asciiValue! }
        guard let year = number(0..<4), year >= 1 else { return nil }
        var moment = CalendarMoment(year: year, month: 1, day: 1, hour: 0, minute: 0, second: 0, precision: .year)
        switch bytes.count {
        case 4:
            break
        case 7:
            guard byte(4, "-"), let month = number(5..<7) else { return nil }
            (moment.month, moment.precision) = (month, .month)
        case 10, 16, 19:
            guard byte(4, "-"), byte(7, "-"), let month = number(5..<7), let day = number(8..<10) else { return nil }
            (moment.month, moment.day, moment.precision) = (month, day, .day)
            if bytes.count > 10 {
                guard byte(10, "T") || byte(10, "t") || byte(10, " "), byte(13, ":"),
                      let hour = number(11..<13), let minute = number(14..<16) else { return nil }
                var second = 0
                if bytes.count == 19 {
                    guard byte(16, ":"), let parsed = number(17..<19) else { return nil }
                    second = parsed
                }
                guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
                (moment.hour, moment.minute, moment.second, moment.precision) = (hour, minute, second, .second)
            }
        default:
            return nil
        }
        guard (1...12).contains(moment.month), (1...Self.days(inMonth: moment.month, year: moment.year)).contains(moment.day) else {
            return nil
        }
        self = moment
    }

    /// `init(parsing:)` for the option `option`, with a message naming both when it fails.
    public static func parse(_ text: String, option: String) throws(OriginalQueryError) -> CalendarMoment {
        guard let moment = CalendarMoment(parsing: text) else {
            throw .invalid(option: option, value: text, expected: "not a date; \(accepted)")
        }
        return moment
    }

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, precision: Precision = .second) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
        self.precision = precision
    }

    /// The first moment after everything this one names: the next year, month, day or second.
    /// Nil past the year 9999 (nothing can be later).
    public var end: CalendarMoment? {
        var next = self
        next.precision = .second
        switch precision {
        case .year:
            next.year += 1
        case .month:
            next.month += 1
        case .day:
            next.day += 1
        case .second:
            next.second += 1
            if next.second == 60 { (next.second, next.minute) = (0, next.minute + 1) }
            if next.minute == 60 { (next.minute, next.hour) = (0, next.hour + 1) }
            if next.hour == 24 { (next.hour, next.day) = (0, next.day + 1) }
        }
        if next.day > Self.days(inMonth: next.month, year: next.year) { (next.day, next.month) = (1, next.month + 1) }
        if next.month == 13 { (next.month, next.year) = (1, next.year + 1) }
        return next.year > 9999 ? nil : next
    }

    /// As the catalog writes capture times: "YYYY:MM:DD HH:MM:SS".
    public var exifText: String {
        "\(Self.four(year)):\(Self.two(month)):\(Self.two(day)) \(Self.two(hour)):\(Self.two(minute)):\(Self.two(second))"
    }

    /// As the catalog writes `added_at`: "YYYY-MM-DDTHH:MM:SSZ" (UTC).
    public var isoText: String {
        "\(Self.four(year))-\(Self.two(month))-\(Self.two(day))T\(Self.two(hour)):\(Self.two(minute)):\(Self.two(second))Z"
    }

    public static func < (a: CalendarMoment, b: CalendarMoment) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private static func four(_ value: Int) -> String { String(repeating: "0", count: max(0, 4 - String(value).count)) + "\(value)" }
}
