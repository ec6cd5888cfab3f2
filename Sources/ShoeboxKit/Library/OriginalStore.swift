/// Where the bytes of originals live: a local folder by default
/// (`LocalOriginalStore`); an S3-compatible object store can implement the same
/// protocol. Paths are relative to the library root ("originals/YYYY/MM/DD/NAME.EXT").
///
/// A download streams into a staging file; `stage` makes it durable under its
/// hash; `publish` moves it to its final, read-only path. Anything staged but
/// never published is found by `pendingStaged` and finished or removed by recovery.
public protocol OriginalStore: AnyObject {
    /// A new, empty staging file for a download in progress.
    func makeStagingFile() throws -> StagingFile
    /// Marks a complete staging file as the content with hash `sha256`;
    /// durable after the next `syncStaged`.
    func stage(_ file: StagingFile, sha256: String) throws
    /// Makes everything staged so far durable (one sync for a whole batch).
    func syncStaged() throws
    /// Moves the staged content `sha256` to `path`, read-only.
    func publish(sha256: String, to path: String) throws
    /// Drops a staging file (failed download, duplicate content).
    func discard(_ file: StagingFile)
    /// Drops staged content that will not be published.
    func discardStaged(sha256: String)
    /// Hashes of content staged but not yet published (left by a crash).
    func pendingStaged() throws -> [String]
    /// Whether staged content still hashes to `sha256`: after a power loss a rename can
    /// be on disk without the bytes it named.
    func stagedContentMatches(sha256: String) -> Bool
    /// Removes partial downloads left by a crash.
    func removePartialDownloads() throws -> Int
    func exists(path: String) -> Bool
    /// A local file path to read the original at `path` from.
    func localPath(for path: String) -> String
}
