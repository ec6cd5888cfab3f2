/// Receives each URL's result as it is final, and progress ticks.
/// Called from the run's threads: implementations must be thread-safe.
public protocol FetchObserver: AnyObject, Sendable {
    func fetchDidFinish(_ result: FetchResult)
    func fetchProgress(_ progress: FetchProgress)
}
