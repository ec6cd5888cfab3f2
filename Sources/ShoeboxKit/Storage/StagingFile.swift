/// A file being downloaded into the store's staging area.
public struct StagingFile: Sendable, Hashable {
    public let path: String
    public let descriptor: Int32

    public init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }
}
