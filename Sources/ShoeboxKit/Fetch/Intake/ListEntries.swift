/// Where `RequestSource` takes its entries from after the command-line URLs: the lists read
/// ahead on a thread (`ListPrefetcher`), or a shared work queue (`QueueIntake`).
protocol ListEntries: AnyObject {
    /// The next entry, or `.waiting` (the engine is woken when there is more), `.end`, `.failed`.
    func poll() -> ListPrefetcher.Poll
    /// The run stops early: no more entries will be asked for.
    func stop()
    /// What the catalog said of `item`'s URL when its entry was handed out: `.some(nil)` for a
    /// URL it does not know; nil when it was not looked up (the caller asks the catalog).
    func knownSource(of item: FetchItem) -> SourceRecord??
}

extension ListPrefetcher: ListEntries {
    func knownSource(of item: FetchItem) -> SourceRecord?? { nil }
}
