import Foundation
import ShoeboxKit

/// The `shoebox` front end: picks the command, parses its arguments, runs it,
/// and turns errors into messages and exit statuses.
public enum ShoeboxCLI {
    public static func main() -> Never {
        Shoebox.initializeProcess()
        let console = Console()
        exit(settle(run(Array(CommandLine.arguments.dropFirst()), console: console), console: console))
    }

    /// The exit status once stdout is accounted for: data that could not be written is a failure.
    static func settle(_ status: Int32, console: Console) -> Int32 {
        guard let failure = console.outputFailure else { return status }
        // The reader went away (`| head`): stop quietly, as a process killed by SIGPIPE would.
        if failure == EPIPE { return ExitStatus.outputClosed }
        console.error("cannot write to standard output: \(String(cString: strerror(failure))); the output is incomplete")
        return status == ExitStatus.success ? ExitStatus.someFailed : status
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
            return ExitStatus.of(error)
        }
    }
}
