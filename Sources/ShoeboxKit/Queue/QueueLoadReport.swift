/// What one `WorkQueue.load` call did.
public struct QueueLoadReport: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// This call loaded the list to its end (from the start, or resuming another loader's work).
        case loaded
        /// The list was already loaded completely; nothing was read.
        case alreadyLoaded
        /// Another worker is loading it now and the call was told not to wait: its items are
        /// claimable as each batch commits; call `load` again later (it resumes if that loader died).
        case loadingElsewhere
    }

    public let outcome: Outcome
    /// The last line an earlier, interrupted loader had committed (0: this call started the list).
    public let resumedAfterLine: Int
    /// Entries this call sent to the queue (those after `resumedAfterLine`).
    public let urlsOffered: Int
    /// New items this call added; `urlsOffered - itemsAdded` URLs were already queued
    /// (listed twice, or queued by another list).
    public let itemsAdded: Int

    public init(outcome: Outcome, resumedAfterLine: Int, urlsOffered: Int, itemsAdded: Int) {
        self.outcome = outcome
        self.resumedAfterLine = resumedAfterLine
        self.urlsOffered = urlsOffered
        self.itemsAdded = itemsAdded
    }
}
