/// `shoebox completions bash|zsh|fish`: prints a completion script generated
/// from the registered commands' specs, so it always matches the parser.
public enum CompletionsCommand: Command {
    public static let spec = CommandSpec(
        name: "completions",
        abstract: "Print a shell completion script for bash, zsh or fish.",
        arguments: "bash|zsh|fish",
        options: [],
        discussion: """
        Install, for one user:
          bash: shoebox completions bash > ~/.local/share/bash-completion/completions/shoebox
          zsh:  shoebox completions zsh > ~/.zfunc/_shoebox   (and fpath+=(~/.zfunc) before compinit in ~/.zshrc)
          fish: shoebox completions fish > ~/.config/fish/completions/shoebox.fish
        man/install.sh installs all three system-wide.
        """
    )

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        guard let shell = arguments.positionals.first else {
            throw UsageError.missingArgument("shell name: give bash, zsh or fish")
        }
        guard arguments.positionals.count == 1 else { throw UsageError.unexpectedArgument(arguments.positionals[1]) }
        let text = try script(for: shell, commands: CommandRegistry.commands.map { $0.spec })
        console.out(String(text.dropLast()))  // out() adds the final newline
        return ExitStatus.success
    }

    /// The completion script for `shell` covering `commands`.
    static func script(for shell: String, commands: [CommandSpec]) throws -> String {
        switch shell {
        case "bash": return BashCompletion.script(for: commands)
        case "zsh": return ZshCompletion.script(for: commands)
        case "fish": return FishCompletion.script(for: commands)
        // A free-form usage message (exit status 2): the shell is an argument, not an option.
        default: throw UsageError.conflicting("unknown shell '\(shell)': give bash, zsh or fish")
        }
    }
}
