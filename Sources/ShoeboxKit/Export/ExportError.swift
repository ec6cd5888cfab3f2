/// Why `shoebox export` cannot start.
public enum ExportError: Error, CustomStringConvertible, Equatable {
    /// The folder exported to is the library or inside it.
    case insideLibrary(folder: String, library: String)
    /// The folder cannot be made or written.
    case cannotWrite(folder: String, reason: String)
    /// `--link` with originals in an object store: there is no file to link.
    case linkNeedsLibraryFolder(store: String)
    /// Another export into the same folder is running.
    case folderBusy(folder: String)

    public var description: String {
        switch self {
        case .insideLibrary(let folder, let library):
            return "--to \(folder) is inside the library \(library); export to a folder outside it"
        case .cannotWrite(let folder, let reason):
            return "--to \(folder): \(reason)"
        case .linkNeedsLibraryFolder(let store):
            return "--link makes hard links to files in a library folder, but the originals are in \(store); export without --link to copy them"
        case .folderBusy(let folder):
            return "another shoebox export into \(folder) is running; wait for it to finish, or export into another folder"
        }
    }
}
