/// How an image meets a size box.
public enum ThumbnailFit: String, Sendable, CaseIterable {
    /// The whole image fits inside the box.
    case inside
    /// The image fills the box and is cropped around its centre.
    case cover
    /// The image fills the box and is cropped around its most interesting part.
    case attention

    /// The crop mode the C shim takes: 0 none, 1 centre, 2 attention.
    var cropMode: Int32 {
        switch self {
        case .inside: return 0
        case .cover: return 1
        case .attention: return 2
        }
    }
}
