/// Refusals of the queue itself (a database failure is the backend's error, e.g. `PostgresError`).
public enum WorkQueueError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Entries must come in increasing line order (a resumed load skips lines up to the last
    /// committed one).
    case linesOutOfOrder(previous: Int, line: Int)
    /// A URL no item can hold (empty, or with a NUL character).
    case invalidURL(line: Int)
    /// `claim` on a list that was never loaded.
    case unknownList(ListIdentity)
    /// The queue was closed; no call may follow `close()`.
    case closed

    public var description: String {
        switch self {
        case let .linesOutOfOrder(previous, line):
            return "list entries out of order: line \(line) after line \(previous); this is a bug in the caller"
        case let .invalidURL(line):
            return "line \(line): the URL is empty or holds a NUL character; the caller must validate URLs before queueing them"
        case let .unknownList(list):
            return "the list \(list) is not in the queue; load it first"
        case .closed:
            return "the work queue was closed; this is a bug in the caller"
        }
    }
}
