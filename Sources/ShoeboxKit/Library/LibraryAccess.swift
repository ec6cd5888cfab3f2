import Foundation

/// Tells a library this user may not read from one that is not there or not a library:
/// both look the same to `fileExists` (EACCES reads as "no such file"), and the advice for
/// the second ("rebuild it with reindex") is wrong and dangerous for the first.
enum LibraryAccess {
    /// Throws `LibraryError.permissionDenied` when the library folder, a folder above it,
    /// or its catalog cannot be read or entered by this process; returns otherwise (a
    /// missing library is for the caller to report).
    static func requireReadable(_ layout: LibraryLayout) throws {
        if let denied = deniedFolder(above: layout.root) { throw error(for: denied, kind: "folder above library") }
        if access(layout.root, F_OK) != 0 { return }
        if access(layout.root, R_OK | X_OK) != 0, errno == EACCES { throw error(for: layout.root, kind: "library") }
        if access(layout.catalog, F_OK) == 0, access(layout.catalog, R_OK) != 0, errno == EACCES {
            throw error(for: layout.catalog, kind: "catalog")
        }
    }

    /// The first folder on the way to `path` that cannot be searched, if any.
    private static func deniedFolder(above path: String) -> String? {
        guard access(path, F_OK) != 0, errno == EACCES else { return nil }
        var folder = FolderPath.containing(path)
        var denied: String?
        // Walk up to the highest folder that still denies: the one to fix is below a searchable one.
        while folder != "/" && folder != "." {
            if access(folder, X_OK) != 0, errno == EACCES { denied = folder }
            folder = FolderPath.containing(folder)
        }
        return denied ?? FolderPath.containing(path)
    }

    private static func error(for path: String, kind: String) -> LibraryError {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .permissionDenied(path: path, kind: kind, owner: "unknown", mode: "unknown", user: userName(getuid()))
        }
        return .permissionDenied(path: path, kind: kind, owner: userName(info.st_uid),
                                 mode: "0" + String(info.st_mode & 0o7777, radix: 8), user: userName(getuid()))
    }

    /// The user name of `uid`, or "uid N" when the password database has none.
    static func userName(_ uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return "uid \(uid)"
        }
        return String(cString: name)
    }
}
