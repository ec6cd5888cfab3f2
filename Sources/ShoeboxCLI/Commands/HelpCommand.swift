/// `shoebox help [COMMAND]`.
public enum HelpCommand: Command {
    public static let spec = CommandSpec(
        name: "help",
        abstract: "Show the commands, or one command's options.",
        arguments: "[COMMAND]",
        options: []
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        guard let name = arguments.positionals.first else {
            console.out(HelpFormatter.overview(commands: CommandRegistry.commands.map { $0.spec }))
            return ExitStatus.success
        }
        guard arguments.positionals.count == 1 else { throw UsageError.unexpectedArgument(arguments.positionals[1]) }
        guard let command = CommandRegistry.command(named: name) else { throw UsageError.unknownCommand(name) }
        console.out(HelpFormatter.usage(of: command.spec))
        return ExitStatus.success
    }
}
