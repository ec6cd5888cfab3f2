/// The append-only record of every change, from which `reindex` rebuilds a lost
/// catalog: `Journal` (LIBRARY/journal.jsonl) for the embedded default. An append
/// is durable when it returns. A backend that is itself durable may need none.
public protocol ChangeLog: AnyObject {
    func append(_ entries: [JournalEntry]) throws
    func append(originals: [OriginalRecord], sources: [SourceRecord]) throws
}

extension Journal: ChangeLog {}
