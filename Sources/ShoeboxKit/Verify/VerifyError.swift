/// Why verify or reindex could not run at all (the library is unusable: exit 4,
/// or reindex refused: exit 2). Messages name the path and what to do.
public enum VerifyError: Error, CustomStringConvertible, Equatable, Sendable {
    case libraryMissing(path: String)
    /// The folder holds none of originals/, journal.jsonl, catalog.sqlite.
    case notALibrary(path: String)
    case catalogMissing(path: String, library: String)
    /// reindex: the catalog is healthy and --force was not given.
    case catalogHealthy(path: String, originals: Int)
    /// reindex: the catalog could not be moved aside or the new one put in place.
    case cannotReplace(path: String, detail: String)
    /// reindex: stopped (Ctrl-C, SIGTERM) before the rebuilt catalog was put in place.
    case interrupted(catalog: String)

    public var description: String {
        switch self {
        case let .libraryMissing(path):
            return "library \(path) does not exist or is not a folder; check the --library path"
        case let .notALibrary(path):
            return "\(path) is not a Shoebox library (it has no originals/, journal.jsonl or catalog.sqlite); check the --library path"
        case let .catalogMissing(path, library):
            return "no catalog at \(path); run `shoebox reindex --library \(library)` to rebuild it from originals/ and journal.jsonl"
        case let .catalogHealthy(path, originals):
            return "catalog \(path) is healthy (\(originals) originals); reindex would replace it. "
                + "Pass --force to rebuild it anyway (the current file is kept beside it)"
        case let .cannotReplace(path, detail):
            return "cannot put the rebuilt catalog in place at \(path): \(detail); the previous catalog was left as it was"
        case let .interrupted(catalog):
            return "interrupted before the rebuilt catalog was put in place: \(catalog) was left as it was "
                + "(staged originals moved into place and entries journaled meanwhile are kept); run the same command again to rebuild it"
        }
    }
}
