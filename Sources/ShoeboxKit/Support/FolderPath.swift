import Foundation

/// Folder helpers shared by the catalog, the journal and reindex.
enum FolderPath {
    /// The folder holding `path` ("." for a bare file name).
    static func containing(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
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
