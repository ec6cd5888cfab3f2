/// What one `verify` run looked at and found.
public struct VerifyReport: Sendable, Equatable, Codable {
    /// Every problem and notice, sorted by path then kind.
    public var findings: [VerifyProblem] = []
    public var originalsChecked = 0
    public var thumbnailsChecked = 0
    /// Files found under originals/.
    public var filesScanned = 0
    /// Bytes read and hashed (0 with --quick).
    public var bytesHashed: Int64 = 0
    /// Wall time of the hashing phase, and of the whole run.
    public var hashSeconds = 0.0
    /// Threads that hashed (fewer than asked when the system refused some).
    public var hashThreads = 0
    public var totalSeconds = 0.0
    public var quick = false
    /// The writer that held the library lock while verify ran beside it ("pid N"), if any.
    public var writer: String?
    /// Files under originals/ the catalog snapshot lacked but the catalog had by the end of
    /// the scan: added by a writer meanwhile, not checked (the next verify checks them).
    public var addedSinceSnapshot = 0
    /// Temp files and files being published of the running writer: its work in progress, not checked.
    public var writerFilesSkipped = 0
    /// Thumbnail findings not reported because a writer held the lock (thumbs may be mid-change).
    public var thumbnailFindingsWithheld = 0

    public init() {}

    public var problemCount: Int { findings.filter { $0.severity == .problem }.count }
    public var noticeCount: Int { findings.filter { $0.severity == .notice }.count }
    public var isClean: Bool { problemCount == 0 }

    /// Hashing rate in GB/s (10^9 bytes), 0 when nothing was hashed.
    public var gigabytesPerSecond: Double {
        hashSeconds > 0 ? Double(bytesHashed) / 1e9 / hashSeconds : 0
    }
}
