import Foundation

/// Thumbnails as files of the library folder, LIBRARY/thumbnails/: the renderer writes each
/// beside its place and renames it in; `stored` is a stat of the file.
public final class LocalThumbnailStore: ThumbnailStore, @unchecked Sendable {
    public let libraryRoot: String

    public init(libraryRoot: String) {
        self.libraryRoot = libraryRoot
    }

    public var renderFolder: String { libraryRoot }
    public var comparesTimes: Bool { true }
    public var isLocal: Bool { true }

    public func prepare() throws {}

    public func stored(_ path: String) -> StoredThumbnail? {
        var info = stat()
        guard stat(libraryRoot + "/" + path, &info) == 0 else { return nil }
        return StoredThumbnail(bytes: Int64(info.st_size),
                               modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    public func keep(_ path: String, format: ThumbnailFormat) throws {}

    public func discardRendered(_ path: String) {}

    public func remove(_ path: String) throws {
        guard unlink(libraryRoot + "/" + path) == 0 || errno == ENOENT else {
            throw ThumbnailError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }

    public func eachStored(_ each: (String) throws -> Void) throws {
        var paths: [String] = []
        _ = DirectoryWalker.walk(libraryRoot + "/" + ThumbnailLayout.folder) { entry in
            paths.append(ThumbnailLayout.folder + "/" + DirectoryWalker.shown(entry.relativePath))
        }
        for path in paths { try each(path) }
    }

    public func location(of path: String) -> String { libraryRoot + "/" + path }

    public func finish() {}
}
