/// Why the gallery could not be written.
public enum GalleryError: Error, Equatable, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)
    /// --out names a folder the library keeps for itself (originals/, thumbnails/, .tmp/).
    case insideLibraryFolder(path: String, folder: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            return "\(path): cannot write the gallery (\(reason)); choose another folder with --out"
        case .insideLibraryFolder(let path, let folder):
            return "\(path): is inside the library's \(folder)/, which holds only what shoebox puts there; "
                + "choose another folder with --out (default: LIBRARY/gallery)"
        }
    }
}
