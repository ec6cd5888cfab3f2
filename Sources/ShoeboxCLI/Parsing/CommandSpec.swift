/// What a command is called, what it takes and how it is described.
public struct CommandSpec: Sendable {
    public let name: String
    public let abstract: String
    /// Positional arguments as shown in the synopsis, e.g. "[LIST ...]".
    public let arguments: String
    public let options: [OptionSpec]
    /// Extra paragraphs printed after the options in `--help`.
    public let discussion: String

    public init(name: String, abstract: String, arguments: String = "", options: [OptionSpec], discussion: String = "") {
        self.name = name
        self.abstract = abstract
        self.arguments = arguments
        self.options = options + [OptionSpec("help", short: "h", help: "Show this help and exit.")]
        self.discussion = discussion
    }

    public func option(named long: String) -> OptionSpec? {
        options.first { $0.long == long }
    }

    public func option(short: Character) -> OptionSpec? {
        options.first { $0.short == short }
    }
}
