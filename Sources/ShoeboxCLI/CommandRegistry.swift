/// Every subcommand, in the order `shoebox help` lists them.
public enum CommandRegistry {
    public static var commands: [any Command.Type] { [
        FetchCommand.self,
        ImportCommand.self,
        InspectCommand.self,
        ListCommand.self,
        ExportCommand.self,
        ThumbsCommand.self,
        GalleryCommand.self,
        VerifyCommand.self,
        ReindexCommand.self,
        StatusCommand.self,
        CompletionsCommand.self,
        HelpCommand.self,
    ] }

    public static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }
}
