import Foundation

/// Why the gallery could not be written.
public enum GalleryError: Error, Equatable, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)
    /// The file system of the page (or its folder) is full.
    case diskFull(path: String)
    /// --out names a folder the library keeps for itself (originals/, thumbnails/, .tmp/).
    case insideLibraryFolder(path: String, folder: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            return "\(path): cannot write the gallery (\(reason)); choose another folder with --out"
        case .diskFull(let path):
            return "no space left on device writing \(path); free some space or choose another folder with --out"
        case .insideLibraryFolder(let path, let folder):
            return "\(path): is inside the library's \(folder)/, which holds only what shoebox puts there; "
                + "choose another folder with --out (default: LIBRARY/gallery)"
        }
    }

    /// The error for a failed write of the page or its folder.
    static func writing(_ error: POSIXFileError) -> GalleryError {
        error.isDiskFull ? .diskFull(path: error.path) : .cannotWrite(path: error.path, reason: String(cString: strerror(error.code)))
    }
}
