/// Live progress of a fetch run.
public struct FetchProgress: Sendable {
    public var finished: Int
    /// URLs known so far (the whole list once it has been counted).
    public var total: Int?
    public var failed: Int
    public var bytes: Int64
    public var elapsed: Double
}

/// Receives each URL's result as it is final, and progress ticks.
/// Called from the run's threads: implementations must be thread-safe.
public protocol FetchObserver: AnyObject, Sendable {
    func fetchDidFinish(_ result: FetchResult)
    func fetchProgress(_ progress: FetchProgress)
}
