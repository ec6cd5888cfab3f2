/// A command line that cannot be run as written (exit status 2).
public enum UsageError: Error, Equatable, CustomStringConvertible {
    case unknownCommand(String)
    case unknownOption(String, command: String)
    case missingValue(option: String)
    case unexpectedValue(option: String)
    case invalidValue(option: String, value: String, expected: String)
    case missingArgument(String)
    case unexpectedArgument(String)
    case conflicting(String)

    public var description: String {
        switch self {
        case .unknownCommand(let name):
            return "unknown command '\(name)'; run 'shoebox help' to list the commands"
        case .unknownOption(let option, let command):
            return "unknown option '\(TerminalText.oneLine(option))' for '\(command)'; run 'shoebox \(command) --help' to list its options"
        case .missingValue(let option):
            return "option '--\(option)' needs a value"
        case .unexpectedValue(let option):
            return "option '--\(option)' takes no value"
        case .invalidValue(let option, let value, let expected):
            return "invalid value '\(TerminalText.oneLine(value))' for '--\(option)': expected \(expected)"
        case .missingArgument(let what):
            return "missing \(what)"
        case .unexpectedArgument(let argument):
            return "unexpected argument '\(TerminalText.oneLine(argument))'"
        case .conflicting(let message):
            return message
        }
    }
}
