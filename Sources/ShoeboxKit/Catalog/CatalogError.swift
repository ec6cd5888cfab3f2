import Foundation

/// Why the catalog could not be opened, read or written. Every message names the
/// catalog file and says what to do next.
public enum CatalogError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file is not a usable SQLite database (failed `PRAGMA quick_check`, not a
    /// database, or corrupt pages met while reading). Never replaced silently.
    case corrupt(path: String, detail: String)
    /// The file (or its folder) cannot be read: missing, permission denied, I/O error.
    case unreadable(path: String, detail: String)
    /// The file or its folder cannot be written (read-only file or file system,
    /// missing folder, no permission to create the `-wal`/`-shm` files).
    case unwritable(path: String, detail: String)
    /// The catalog was written by a newer shoebox with a schema this one does not know.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// The disk filled up during a write; the transaction was rolled back.
    case diskFull(path: String, detail: String)
    /// Another process held the database lock for longer than the busy timeout.
    case busy(path: String, detail: String)
    /// A write broke a rule of the schema (duplicate sha256 or path, unknown original).
    case constraint(path: String, detail: String)
    /// Any other SQLite failure.
    case sqlite(path: String, code: Int32, detail: String)

    /// The library folder the catalog lives in (for remedies naming `--library`).
    private static func library(of path: String) -> String { FolderPath.containing(path) }

    public var description: String {
        switch self {
        case let .corrupt(path, detail):
            return "catalog \(path) is corrupt (\(detail)); it was left untouched. "
                + "Run `shoebox reindex --library \(Self.library(of: path))`: it rebuilds the catalog from originals/ and "
                + "journal.jsonl, and keeps this file beside it as \((path as NSString).lastPathComponent).corrupt-TIME."
        case let .unreadable(path, detail):
            return "cannot read catalog \(path): \(detail). "
                + "Check that the library folder exists and that you may read it; "
                + "if the catalog is lost, `shoebox reindex --library \(Self.library(of: path))` rebuilds it."
        case let .unwritable(path, detail):
            return "cannot write catalog \(path): \(detail). "
                + "Check permissions on the file and on its folder (SQLite creates \(path)-wal and \(path)-shm beside it) "
                + "and that the file system is mounted read-write."
        case let .schemaTooNew(path, found, supported):
            return "catalog \(path) has schema version \(found) but this shoebox \(Shoebox.version) understands "
                + "up to version \(supported); upgrade shoebox to use this library."
        case let .diskFull(path, detail):
            return "disk full while writing catalog \(path) (\(detail)); the last batch was not recorded. "
                + "Free some space and run the command again."
        case let .busy(path, detail):
            return "catalog \(path) is locked by another process (\(detail)); wait for it to finish and try again."
        case let .constraint(path, detail):
            return "catalog \(path) refused a write: \(detail). This is a bug in the caller; nothing was recorded."
        case let .sqlite(path, code, detail):
            return "SQLite error \(code) on catalog \(path): \(detail). "
                + "Run `shoebox verify --library \(Self.library(of: path))` to check the library."
        }
    }
}
