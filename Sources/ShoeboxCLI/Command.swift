/// A subcommand: its declaration and what running it does.
/// Commands only turn arguments into calls on ShoeboxKit and print results.
public protocol Command {
    static var spec: CommandSpec { get }
    /// Runs the command and returns its exit status.
    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32
}
