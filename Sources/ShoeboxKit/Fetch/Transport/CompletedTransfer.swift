import Foundation

/// The end of a transfer after all its attempts, handed from the transfer engine to the archiver.
public struct CompletedTransfer: Sendable {
    public enum Body: Sendable {
        /// A 2xx body, complete in a staging file; `prefix` is its first bytes (up to
        /// `headLength` from a download, fewer from `import`).
        case received(StagingFile, sha256: String, bytes: Int64, prefix: [UInt8])
        /// A 2xx response with no body.
        case empty
        /// 304 to a conditional request.
        case notModified
        /// No usable body: the reason says why.
        case failed(reason: String)
        /// Refused without downloading it all (over --max-size): the reason says why.
        case refused(reason: String)
    }

    /// How much of a body's start a download keeps in memory: the headers and EXIF of most
    /// photos (as `FileByteSource` reads them in one window), so that the archiver reads its
    /// metadata without opening the file again.
    public static let headLength = 16 * 1024

    public let request: TransferRequest
    public let body: Body
    public let attempts: Int
    public let httpStatus: Int?
    public let contentType: String?
    public let etag: String?
    public let lastModified: String?
    public let finalURL: String?
    /// Said of the transfer, for the result (a body stored although its end is unproven).
    public var warnings: [String] = []
    /// The response's Content-Disposition header (a file name for a URL that ends in none).
    public var contentDisposition: String? = nil
    /// A failure to retry after this many seconds, handed back to a shared work queue rather
    /// than waited for here (`FetchOptions.handOffRetriesLongerThan`).
    public var retryAfter: Double? = nil
    /// For a local file brought in by `import`: its path, whose name names the original, and
    /// its modification time, which dates it when its metadata does not (`CaptureDate.forFile`),
    /// as Last-Modified dates a download.
    public var localFile: (path: String, modified: time_t)? = nil
}
