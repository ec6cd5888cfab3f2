/// Totals of a fetch run, for the closing summary and the exit status.
public struct FetchSummary: Sendable {
    public var counts: [FetchOutcome: Int] = [:]
    public var bytes: Int64 = 0
    public var elapsed: Double = 0
    /// URLs listed more than once (downloaded once).
    public var repeatedURLs = 0
    public var cancelled = false
    /// URLs running or waiting to retry when the run was cancelled: no outcome, fetched
    /// again by the next run.
    public var interrupted = 0
    /// URLs of the lists the cancelled run never came to (known when no list is stdin).
    public var notStarted = 0
    /// What stopped the run early (disk full, catalog failure), if anything did.
    public var stopReason: String?
    /// The run stopped because the shared catalog went away and did not come back in time.
    public var catalogUnreachable = false
    /// Originals recorded but not yet in place (their upload or move failed): the next run
    /// finishes them, and this run does not count as all good.
    public var notInPlace = 0
    /// Catalogued originals whose missing file was put back with bytes downloaded again
    /// (`--refresh`); their bytes count as stored.
    public var restored = 0

    public init() {}

    public var total: Int { counts.values.reduce(0, +) + interrupted + notStarted }
    public var failures: Int { (counts[.failed] ?? 0) + (counts[.rejected] ?? 0) }
    public var allSucceeded: Bool { failures == 0 && notInPlace == 0 && stopReason == nil && !cancelled }

    mutating func add(_ result: FetchResult) {
        counts[result.outcome, default: 0] += 1
        if result.notInPlace != nil { notInPlace += 1 }
        let restored = result.restoredOriginal && result.notInPlace == nil
        if restored { self.restored += 1 }
        if result.outcome == .stored || restored { bytes += result.bytes ?? 0 }
    }
}
