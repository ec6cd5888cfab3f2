/// One thumbnail to write: its size and where it goes (relative to the library root).
public struct ThumbnailTarget: Sendable, Hashable {
    public var size: ThumbnailSize
    public var path: String

    public init(size: ThumbnailSize, path: String) {
        self.size = size
        self.path = path
    }
}

/// A thumbnail just written.
public struct RenderedThumbnail: Sendable, Equatable {
    public var target: ThumbnailTarget
    public var width: Int
    public var height: Int
    public var bytes: Int64
    public var milliseconds: Double
}
