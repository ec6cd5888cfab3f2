import Foundation

/// Folder helpers shared by the catalog, the journal and reindex.
enum FolderPath {
    /// The folder holding `path` ("." for a bare file name).
    static func containing(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
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
