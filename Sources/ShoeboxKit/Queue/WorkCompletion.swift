/// A claimed item finished (`WorkQueue.complete`), with what became of it: the caller's
/// outcome (e.g. `FetchOutcome.rawValue`: stored, duplicate, skipped, a final 404…). Only
/// kept for the record; the queue counts every completion as done.
public struct WorkCompletion: Sendable, Equatable {
    public let id: Int64
    public let outcome: String

    public init(id: Int64, outcome: String) {
        self.id = id
        self.outcome = outcome
    }
}
