/// Live progress of a fetch run.
public struct FetchProgress: Sendable {
    public var finished: Int
    /// URLs known so far (the whole list once it has been counted).
    public var total: Int?
    public var failed: Int
    public var bytes: Int64
    public var elapsed: Double
}
