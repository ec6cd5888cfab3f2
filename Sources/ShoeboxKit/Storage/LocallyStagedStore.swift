/// A store whose downloads are staged in a local folder (`LocalStagingArea`), whatever it
/// publishes to: the staging half of `OriginalStore`, given once for the local and the S3 store.
public protocol LocallyStagedStore: OriginalStore {
    var staging: LocalStagingArea { get }
}

extension LocallyStagedStore {
    public func makeStagingFile() throws -> StagingFile { try staging.makeStagingFile() }
    public func discard(_ file: StagingFile) { staging.discard(file) }
    public func stage(_ file: StagingFile, sha256: String) throws { try staging.stage(file, sha256: sha256) }
    public func syncStaged() throws { try staging.sync() }
    public func discardStaged(sha256: String) { staging.discardStaged(sha256: sha256) }
    public func pendingStaged() throws -> [String] { try staging.pendingStaged() }
    public func stagedContentMatches(sha256: String) -> Bool { staging.stagedContentMatches(sha256: sha256) }
}
