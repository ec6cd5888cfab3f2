/// One URL of a list, as a claim hands it out.
public struct WorkItem: Sendable, Equatable, Hashable {
    /// The queue's key for the item (what complete / retryLater / fail name).
    public let id: Int64
    public let url: String
    /// Its line in the list that queued it (1-based), for messages.
    public let line: Int
    /// Earlier tries that ended in `retryLater` or `fail`: 0 on the first try.
    public let attempts: Int
    /// Times it was claimed, this claim included: above `attempts + 1` when a worker holding
    /// it died or let it go (a URL that kills workers shows up here).
    public let claims: Int
    /// The reason given with the last `retryLater`, if any.
    public let lastError: String?

    public init(id: Int64, url: String, line: Int, attempts: Int, claims: Int, lastError: String?) {
        self.id = id
        self.url = url
        self.line = line
        self.attempts = attempts
        self.claims = claims
        self.lastError = lastError
    }
}
