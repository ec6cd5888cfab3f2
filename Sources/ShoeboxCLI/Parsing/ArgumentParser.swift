/// Parses one command's arguments: `--long`, `--long=value`, `--long value`,
/// `-s`, `-s value`, `-svalue`, grouped short flags (`-fq`), and `--` to end options.
public enum ArgumentParser {
    public static func parse(_ arguments: [String], for command: CommandSpec) throws -> ParsedArguments {
        var parsed = ParsedArguments(command: command)
        var index = 0
        var optionsEnded = false
        func nextValue(for option: OptionSpec) throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError.missingValue(option: option.long) }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                // A stray word must not be ignored: `verify OTHERLIB` would check $SHOEBOX_LIBRARY.
                guard !command.arguments.isEmpty else { throw UsageError.unexpectedArgument(argument) }
                parsed.addPositional(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                guard let option = command.option(named: name) else {
                    throw UsageError.unknownOption(argument, command: command.name)
                }
                if let equals = body.firstIndex(of: "=") {
                    guard option.takesValue else { throw UsageError.unexpectedValue(option: name) }
                    parsed.add(String(body[body.index(after: equals)...]), for: name)
                } else {
                    parsed.add(option.takesValue ? try nextValue(for: option) : "", for: name)
                }
            } else {
                try parseShortGroup(argument, into: &parsed, command: command, next: nextValue)
            }
            index += 1
        }
        return parsed
    }

    private static func parseShortGroup(
        _ argument: String, into parsed: inout ParsedArguments, command: CommandSpec,
        next: (OptionSpec) throws -> String
    ) throws {
        var letters = Substring(argument.dropFirst())
        while let letter = letters.first {
            letters = letters.dropFirst()
            guard let option = command.option(short: letter) else {
                throw UsageError.unknownOption("-\(letter)", command: command.name)
            }
            guard option.takesValue else {
                parsed.add("", for: option.long)
                continue
            }
            parsed.add(letters.isEmpty ? try next(option) : String(letters), for: option.long)
            return
        }
    }
}
