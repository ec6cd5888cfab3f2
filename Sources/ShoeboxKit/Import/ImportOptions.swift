/// What `shoebox import` is asked to do.
public struct ImportOptions: Sendable {
    /// Files and folders to import (folders recursively).
    public var paths: [String]
    /// Show where each file would go; change nothing.
    public var dryRun = false
    /// Remove each source file once its original is durable and catalogued (or the library
    /// had its bytes already).
    public var move = false
    /// Hard-link originals to their source files instead of copying (same file system, a
    /// library folder only). The source then shares the original's read-only mode.
    public var link = false
    /// Follow symbolic links to files (never to folders: no loops). Off: links are skipped and counted.
    public var followLinks = false

    public init(paths: [String]) {
        self.paths = paths
    }
}
