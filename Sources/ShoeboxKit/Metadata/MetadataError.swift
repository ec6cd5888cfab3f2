/// Why a file's metadata could not be read at all. Damaged EXIF inside a
/// readable image is not an error: it becomes a warning in `PhotoMetadata`.
public enum MetadataError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notRegularFile(path: String)
    case readFailed(path: String, reason: String)
    case empty(path: String)
    case notAnImage(path: String)
    case damaged(path: String, format: ImageFormat, detail: String)

    public var path: String {
        switch self {
        case .cannotOpen(let path, _), .notRegularFile(let path), .readFailed(let path, _), .empty(let path),
             .notAnImage(let path), .damaged(let path, _, _):
            return path
        }
    }

    /// The message without the leading path, for callers that name the file themselves.
    public var reason: String {
        String(description.dropFirst(path.count + 2))
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "\(path): cannot open: \(reason); check that the file exists and is readable"
        case .notRegularFile(let path):
            return "\(path): not a regular file; give an image file or a directory to recurse"
        case .readFailed(let path, let reason):
            return "\(path): read failed: \(reason); the disk or file system may be failing"
        case .empty(let path):
            return "\(path): the file is empty (0 bytes); it was probably not downloaded completely"
        case .notAnImage(let path):
            return "\(path): not a recognised image (unknown first bytes); it may be an HTML error page or another kind of file"
        case .damaged(let path, let format, let detail):
            return "\(path): \(format.rawValue.uppercased()) file is damaged: \(detail)"
        }
    }
}
