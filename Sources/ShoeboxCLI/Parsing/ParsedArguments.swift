/// The result of parsing one command line against a `CommandSpec`.
public struct ParsedArguments: Sendable {
    public let command: CommandSpec
    public private(set) var positionals: [String] = []
    private var valuesByOption: [String: [String]] = [:]

    init(command: CommandSpec) {
        self.command = command
    }

    mutating func add(_ value: String, for option: String) {
        valuesByOption[option, default: []].append(value)
    }

    mutating func addPositional(_ value: String) {
        positionals.append(value)
    }

    public func flag(_ long: String) -> Bool {
        valuesByOption[long] != nil
    }

    /// The last value given for an option, if any.
    public func value(_ long: String) -> String? {
        valuesByOption[long]?.last
    }

    /// Every value given for a repeatable option, in order.
    public func values(_ long: String) -> [String] {
        valuesByOption[long] ?? []
    }

    /// An integer option within `range`, or its default.
    public func integer(_ long: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = value(long) else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError.invalidValue(option: long, value: text, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A number of seconds (fractions allowed) within `range`, or its default.
    public func seconds(_ long: String, default defaultValue: Double, in range: ClosedRange<Double>) throws -> Double {
        guard let text = value(long) else { return defaultValue }
        guard let number = Double(text), range.contains(number) else {
            throw UsageError.invalidValue(option: long, value: text, expected: "a number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
