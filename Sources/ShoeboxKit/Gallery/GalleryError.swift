/// Why the gallery could not be written.
public enum GalleryError: Error, Equatable, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            return "\(path): cannot write the gallery (\(reason)); choose another folder with --out"
        }
    }
}
