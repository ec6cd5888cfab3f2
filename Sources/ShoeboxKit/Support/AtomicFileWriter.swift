import Foundation

/// Folders and small files written with plain system calls, so that a failure
/// carries the system's reason (ENOSPC, EACCES...) and the path, never
/// Foundation's error text ("Error Domain=NSCocoaErrorDomain Code=640").
enum AtomicFileWriter {
    /// `mkdir -p`: makes `path` and its missing parents (mode 0755).
    static func createFolders(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, 0o755) == 0 { continue }
            let code = errno
            var info = stat()
            guard code == EEXIST, stat(prefix, &info) == 0 else {
                throw POSIXFileError(path: prefix, operation: "creating folder", code: code)
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw POSIXFileError(path: prefix, operation: "creating folder", code: ENOTDIR)
            }
        }
    }

    /// Writes `bytes` to `path` through a temporary file beside it (its name starting
    /// with `temporaryPrefix`), renamed into place when complete: `path` holds either
    /// its old content or all of the new. The temporary file is removed on failure.
    static func write(_ bytes: [UInt8], to path: String, temporaryPrefix: String) throws {
        let folder = FolderPath.containing(path)
        let temporary = (folder == "." ? "" : folder == "/" ? "/" : folder + "/") + temporaryPrefix + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw POSIXFileError(path: path, operation: "writing", code: errno)
        }
        let written = bytes.withUnsafeBytes { POSIXWrite.all($0, to: descriptor) }
        let writeCode = errno
        // Some file systems (NFS) report a full disk only when the file is closed.
        let closed = close(descriptor) == 0
        let closeCode = errno
        guard written, closed else {
            unlink(temporary)
            throw POSIXFileError(path: path, operation: "writing", code: written ? closeCode : writeCode)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw POSIXFileError(path: path, operation: "writing", code: code)
        }
    }
}
