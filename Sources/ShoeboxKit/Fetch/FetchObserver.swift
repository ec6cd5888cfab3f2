/// Receives each URL's result as it is final, and progress ticks.
/// Called from the run's threads: implementations must be thread-safe.
public protocol FetchObserver: AnyObject, Sendable {
    func fetchDidFinish(_ result: FetchResult)
    func fetchProgress(_ progress: FetchProgress)
    /// The run waits (`waitForLock`) for another writer; `holder` names it when known
    /// ("pid 1234"). Called once, before the wait.
    func fetchWaitsForLock(library: String, holder: String?)
    /// Something the user must know that is no URL's result (said once, as a warning).
    func fetchNotice(_ message: String)
}

extension FetchObserver {
    public func fetchWaitsForLock(library: String, holder: String?) {}
    public func fetchNotice(_ message: String) {}
}
