/// Why `shoebox import` cannot start.
public enum ImportError: Error, CustomStringConvertible, Equatable {
    /// A path given does not exist (or cannot be looked at).
    case pathMissing(path: String, reason: String)
    /// A path given is the library or inside it.
    case insideLibrary(path: String, library: String)
    /// `--link` with originals in an object store: there is no file to link.
    case linkNeedsLibraryFolder(store: String)

    public var description: String {
        switch self {
        case .pathMissing(let path, let reason):
            return "\(path): \(reason); give files or folders of photos to import"
        case .insideLibrary(let path, let library):
            return "\(path) is inside the library \(library): its originals are archived already (use `shoebox reindex` for files put there by hand)"
        case .linkNeedsLibraryFolder(let store):
            return "--link makes hard links in a library folder, but originals go to \(store); import without --link to copy them"
        }
    }
}
