/// Every subcommand, in the order `shoebox help` lists them.
public enum CommandRegistry {
    public static var commands: [any Command.Type] { [
        HelpCommand.self,
        FetchCommand.self,
        InspectCommand.self,
        VerifyCommand.self,
        ReindexCommand.self,
        CompletionsCommand.self,
    ] }

    public static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }
}
