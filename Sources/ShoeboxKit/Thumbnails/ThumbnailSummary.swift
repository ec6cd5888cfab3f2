/// Counts from one `shoebox thumbs` run.
public struct ThumbnailSummary: Sendable, Equatable {
    public var originals = 0
    public var made = 0
    /// Originals whose requested thumbnails were all up to date.
    public var upToDate = 0
    /// Originals that failed.
    public var failed = 0
    public var pruned = 0
    /// Stale originals another worker made or failed meanwhile (a shared catalog).
    public var elsewhere = 0
    /// Temporary files of an interrupted run removed before this one began.
    public var leftoversRemoved = 0
    /// Stopped early (SIGINT/SIGTERM); the work done so far is recorded.
    public var cancelled = false

    public init() {}
}
