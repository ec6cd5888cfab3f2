import ShoeboxKit

/// Prints why a library command could not run and picks its exit status:
/// 3 when another process holds the library, 4 when the library is unusable.
enum LibraryFailure {
    static func status(for error: Error, command: String, console: Console) -> Int32 {
        console.error("\(command): \(error)")
        if case LibraryError.locked = error { return ExitStatus.libraryLocked }
        if case CatalogError.busy = error { return ExitStatus.libraryLocked }
        return ExitStatus.libraryUnusable
    }
}
