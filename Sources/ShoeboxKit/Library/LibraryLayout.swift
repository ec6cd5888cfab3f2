import Foundation

/// Where things live inside a library folder.
public struct LibraryLayout: Sendable {
    public let root: String

    public init(root: String) {
        var trimmed = root
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = trimmed
    }

    /// Relative folder of the originals.
    public static let originalsFolder = "originals"
    public static let thumbnailsFolder = "thumbnails"

    public var originals: String { root + "/" + Self.originalsFolder }
    public var thumbnails: String { root + "/" + Self.thumbnailsFolder }
    /// Staging area for downloads in progress and content not yet published.
    public var staging: String { root + "/.tmp" }
    public var catalog: String { root + "/catalog.sqlite" }
    public var journal: String { root + "/journal.jsonl" }
    public var lockFile: String { root + "/.lock" }
    /// The store the originals are in, when not originals/ (`StoreBinding`).
    public var storeFile: String { root + "/store" }

    /// Whether `path` is a plain relative path under originals/: no empty, `.` or `..`
    /// part, so it cannot lead out of the folder (a catalog edited by hand could say anything).
    public static func isPlainOriginalPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts[0] == Substring(originalsFolder)
            && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    /// Absolute path of a path relative to the library root.
    public func absolute(_ relativePath: String) -> String {
        root + "/" + relativePath
    }

    /// Checks that the library exists and has a catalog, for commands that never create one.
    public func requireExisting() throws {
        try LibraryAccess.requireReadable(self)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder) else {
            throw LibraryError.doesNotExist(path: root)
        }
        guard isFolder.boolValue else { throw LibraryError.notADirectory(path: root) }
        guard FileManager.default.fileExists(atPath: catalog) else { throw LibraryError.noCatalog(path: root) }
    }
}
