/// How thumbs processes on several machines share one catalog's work: each original whose
/// thumbnails are stale is made by one of them. A worker claims originals batch by batch under
/// a lease it renews; a killed worker's claims return when the lease runs out; what a worker
/// finishes (made or failed) is not taken again by workers that began before it finished.
///
/// A job is one set of thumbnails (sizes and `ThumbnailOptions.settings`): workers making
/// other sizes or formats do not wait for each other. `PostgresThumbnailClaims` is the one
/// implementation (a shared catalog); a library with its own catalog has one writer at a time
/// and needs none.
public protocol ThumbnailClaims: AnyObject, Sendable {
    /// Starts this worker's run, before it reads the catalog: an original finished by another
    /// worker after this moment is not made again; one finished before it, and still stale in
    /// what this worker read, is (`--force`, changed settings).
    func begin() throws
    /// Offers originals (their library paths); returns those now this worker's, and those
    /// another worker finished since `begin` (never to be made by this one). The rest are held
    /// by live workers: offer them again later.
    func claim(_ paths: [String], lease: Double) throws -> (granted: [String], settled: [String])
    /// Keeps every claim of this worker alive for another `lease` seconds.
    func renew(lease: Double) throws
    /// Records originals as finished: `done` made, `failed` tried and failed. Only claims this
    /// worker still holds are changed.
    func finish(done: [String], failed: [String]) throws
    /// Lets go of every claim not finished (the run ends or stops).
    func release() throws
}
