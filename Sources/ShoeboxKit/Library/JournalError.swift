/// Why the journal could not be written or read. Messages name the file and the remedy.
public enum JournalError: Error, CustomStringConvertible, Equatable, Sendable {
    case unwritable(path: String, detail: String)
    case diskFull(path: String)
    case unreadable(path: String, detail: String)
    /// A line that is not a journal entry (not the torn last line of a crash).
    case malformed(path: String, line: Int, detail: String)

    public var description: String {
        switch self {
        case let .unwritable(path, detail):
            return "cannot write journal \(path): \(detail). Check permissions on the library folder "
                + "and that its file system is mounted read-write."
        case let .diskFull(path):
            return "disk full while writing journal \(path); the batch was not recorded and the journal was "
                + "left as before. Free some space and run the command again."
        case let .unreadable(path, detail):
            return "cannot read journal \(path): \(detail). Check that it exists and that you may read it."
        case let .malformed(path, line, detail):
            return "\(path):\(line): not a journal entry (\(detail)). The journal was edited or damaged: "
                + "keep a copy, remove or fix that line, and run the command again."
        }
    }
}
