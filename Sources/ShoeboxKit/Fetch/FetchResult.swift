/// What happened to one URL: the record printed by `fetch --json`.
public struct FetchResult: Sendable {
    public var url: String
    /// Where the URL was listed ("FILE:LINE").
    public var origin: String
    public var finalURL: String?
    public var outcome: FetchOutcome
    public var reason: String?
    public var httpStatus: Int?
    /// The Content-Type the server sent.
    public var contentType: String?
    /// The extension of the stored format (from the bytes).
    public var fileExtension: String?
    public var bytes: Int64?
    public var sha256: String?
    /// Path of the original, relative to the library.
    public var path: String?
    public var attempts: Int
    public var warnings: [String]
    /// The archived original's catalog row (capture date, camera, size, GPS).
    public var original: OriginalRecord?
    /// Why a stored original is recorded but not yet at `path` (it waits in .tmp/ for the
    /// next fetch or reindex to move it); nil when it is in place.
    public var notInPlace: String?
    /// Whether these bytes put back the missing file of an original the catalog knew.
    public var restoredOriginal = false
    /// Where the damaged bytes an original held were kept when these put it back (`DamagedCopy`).
    public var damagedCopy: String?
    /// A failure handed back to the shared work queue, to be retried after this many seconds.
    public var retryAfter: Double?
    /// Downloaded but not recorded: the run stopped first (the URL is to be fetched again).
    public var unrecorded = false

    public init(url: String, origin: String, outcome: FetchOutcome, reason: String? = nil, attempts: Int = 0) {
        self.url = url
        self.origin = origin
        self.outcome = outcome
        self.reason = reason
        self.attempts = attempts
        warnings = []
    }
}
