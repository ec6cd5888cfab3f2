import Foundation

/// Folder helpers shared by the catalog, the journal and reindex.
enum FolderPath {
    /// The folder holding `path` ("." for a bare file name, "/" for a file at the root),
    /// cut at its last "/" byte. Not NSString's deletingLastPathComponent: Foundation
    /// traps (SIGILL) on some paths with a "~" component ("~", "a/~/b"), which a
    /// library given as `-L 'a/~/b'` made fetch do.
    static func containing(_ path: String) -> String {
        let slash = UInt8(ascii: "/")
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes.last == slash { bytes.removeLast() }
        guard var end = bytes.lastIndex(of: slash) else { return "." }
        while end > 0 && bytes[end - 1] == slash { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Creates `folder` and the folders above it that are missing (mkdir -p). Returns
    /// the errno of the failure, nil on success: FileManager reports a file in the way
    /// (ENOTDIR) as "NSCocoaErrorDomain error 512".
    static func create(_ folder: String) -> Int32? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) { return isFolder.boolValue ? nil : ENOTDIR }
        let parent = containing(folder)
        if parent != folder, parent != ".", parent != "/", let failure = create(parent) { return failure }
        guard mkdir(folder, 0o755) != 0 else { return nil }
        let failure = errno
        // EEXIST for something that is no folder (a dangling symbolic link, a file made meanwhile).
        guard failure == EEXIST else { return failure }
        return FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue ? nil : ENOTDIR
    }

    /// fsyncs `folder` so that files created or renamed in it are durable.
    /// Returns the errno of the failure, nil on success.
    static func sync(_ folder: String) -> Int32? {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        return fsync(fd) == 0 ? nil : errno
    }
}
