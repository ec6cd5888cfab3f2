import ShoeboxKit

/// Exit statuses, documented in the manual.
public enum ExitStatus {
    /// Everything succeeded.
    public static let success: Int32 = 0
    /// Some items failed (downloads, unreadable files, problems found by verify).
    public static let someFailed: Int32 = 1
    /// Usage error or unreadable input list.
    public static let usage: Int32 = 2
    /// The library is locked by another writer.
    public static let libraryLocked: Int32 = 3
    /// The library cannot be created, written or opened (read-only, missing, full disk, corrupt catalog).
    public static let libraryUnusable: Int32 = 4
    /// The shared catalog (PostgreSQL) cannot be reached, refused the login, or went away
    /// mid-run and did not come back in time: nothing catalogued is lost; run again later.
    public static let catalogUnreachable: Int32 = 5
    /// Interrupted by SIGINT or SIGTERM.
    public static let interrupted: Int32 = 130
    /// Standard output was closed by its reader (128 + SIGPIPE, as for a process SIGPIPE ends).
    public static let outputClosed: Int32 = 141

    /// The one table from errors to exit statuses: every command that stops on an error
    /// exits with the status this gives it.
    public static func of(_ error: Error) -> Int32 {
        switch error {
        case LibraryError.locked, CatalogError.busy, ExportError.folderBusy:
            return libraryLocked
        case is UsageError, is FetchRunError, is URLListReader.ReadError, is ImportError, is OriginalQueryError, is ExportError:
            return usage
        case LibraryError.waitInterrupted, VerifyError.interrupted:
            return interrupted
        case LibraryError.unsupportedStore, LibraryError.storeMismatch, VerifyError.catalogHealthy, GalleryError.insideLibraryFolder:
            return usage
        case S3Error.invalidLocation, S3Error.missingCredentials, S3Error.invalidConfiguration, PostgresError.invalidURI:
            return usage
        case PostgresError.serverUnreachable, PostgresError.connectionLost, PostgresError.authenticationFailed,
             PostgresError.databaseMissing:
            return catalogUnreachable
        default:
            return libraryUnusable
        }
    }
}
