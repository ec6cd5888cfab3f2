import Foundation
import ShoeboxKit

/// The `shoebox` front end: picks the command, parses its arguments, runs it,
/// and turns errors into messages and exit statuses.
public enum ShoeboxCLI {
    public static func main() -> Never {
        Shoebox.initializeProcess()
        exit(run(Array(CommandLine.arguments.dropFirst()), console: Console()))
    }

    public static func run(_ arguments: [String], console: Console) -> Int32 {
        guard let first = arguments.first else {
            console.note(HelpFormatter.overview(commands: CommandRegistry.commands.map { $0.spec }) + "\n")
            return ExitStatus.usage
        }
        switch first {
        case "--version", "-V", "version":
            console.out("shoebox \(Shoebox.version)")
            return ExitStatus.success
        case "--help", "-h":
            console.out(HelpFormatter.overview(commands: CommandRegistry.commands.map { $0.spec }))
            return ExitStatus.success
        default:
            break
        }
        guard let command = CommandRegistry.command(named: first) else {
            console.error(UsageError.unknownCommand(first).description)
            return ExitStatus.usage
        }
        do {
            let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), for: command.spec)
            if parsed.flag("help") {
                console.out(HelpFormatter.usage(of: command.spec))
                return ExitStatus.success
            }
            return try command.run(parsed, console: console)
        } catch let error as UsageError {
            console.error("\(command.spec.name): \(error.description)")
            return ExitStatus.usage
        } catch {
            console.error("\(command.spec.name): \(error)")
            return ExitStatus.someFailed
        }
    }
}
