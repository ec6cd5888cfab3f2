import ShoeboxKit

/// Prints why a command could not run, and gives its exit status from the one table
/// (`ExitStatus.of`).
enum LibraryFailure {
    static func status(for error: Error, command: String, console: Console) -> Int32 {
        console.error("\(command): \(error)")
        return ExitStatus.of(error)
    }
}
