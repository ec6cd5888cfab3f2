/// One option a command accepts, declared once: the parser, `--help`, the
/// completions and the manual's test all read it from here.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable {
        /// `--name` alone.
        case flag
        /// `--name VALUE` or `--name=VALUE`; the last one given wins.
        case value(String)
        /// `--name VALUE`, repeatable; every value is kept in order.
        case values(String)
    }

    public let long: String
    public let short: Character?
    public let kind: Kind
    public let help: String
    /// The default shown in `--help`, when there is one.
    public let defaultValue: String?

    public init(_ long: String, short: Character? = nil, _ kind: Kind = .flag, help: String, default defaultValue: String? = nil) {
        self.long = long
        self.short = short
        self.kind = kind
        self.help = help
        self.defaultValue = defaultValue
    }

    public var takesValue: Bool {
        if case .flag = kind { return false }
        return true
    }

    public var valueName: String? {
        switch kind {
        case .flag: return nil
        case .value(let name), .values(let name): return name
        }
    }
}
