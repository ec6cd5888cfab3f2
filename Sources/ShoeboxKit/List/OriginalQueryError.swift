/// A filter of `shoebox list` that cannot be used as written (exit status 2). The message
/// names the option and the value, and says what would be accepted.
public enum OriginalQueryError: Error, Equatable, CustomStringConvertible {
    /// `option value`: why it is not usable, and what to write instead.
    case invalid(option: String, value: String, expected: String)
    /// Two filters that together can match nothing, or cannot be combined.
    case conflicting(String)

    public var description: String {
        switch self {
        case let .invalid(option, value, expected):
            return "--\(option) \(Self.visible(value)): \(expected)"
        case let .conflicting(message):
            return message
        }
    }

    /// The value as typed, control characters shown as \xNN (it is printed on a terminal).
    private static func visible(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
