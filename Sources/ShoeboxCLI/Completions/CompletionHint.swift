import Foundation

/// What a shell should offer for an option's value or a command's arguments,
/// read from the names the specs already use: `DIR` is a folder, `FILE`,
/// `LIST` and `PATH` are files, `a|b|c` are choices, `COMMAND` is a shoebox
/// command; anything else (`N`, `SECS`, `URL`...) is free text.
enum CompletionHint: Equatable {
    case none
    case files
    case directories
    case choices([String])
    case commands

    /// The hint for an option value named `name` (e.g. "DIR", "jpeg|webp|avif").
    static func forValue(named name: String) -> CompletionHint {
        let word = name.trimmingCharacters(in: .init(charactersIn: "[]. "))
        if word.contains("|") {
            return .choices(word.split(separator: "|").map(String.init))
        }
        switch word.uppercased() {
        case "DIR", "DIRECTORY", "FOLDER": return .directories
        case "FILE", "LIST", "PATH": return .files
        case "COMMAND": return .commands
        default: return .none
        }
    }

    /// The hint for a command's positional arguments as its synopsis shows them (e.g. "[LIST ...]").
    static func forArguments(_ synopsis: String) -> CompletionHint {
        let words = synopsis.split(whereSeparator: { " []".contains($0) }).filter { $0 != "..." }
        guard let first = words.first else { return .none }
        return forValue(named: String(first))
    }

    /// Whether the positional arguments can be given more than once.
    static func isRepeatable(_ synopsis: String) -> Bool {
        synopsis.contains("...")
    }
}
