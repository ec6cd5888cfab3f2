import Foundation

/// One writer's own staging folder, LIBRARY/.tmp/writer-<host>-<pid>-<random>/, for writers
/// that share a catalog (PostgreSQL) and so run side by side without the library's
/// exclusive lock. Each writer stages in its folder alone, so its start-up clean-up never
/// touches a download another writer has in progress.
///
/// The folder's `owner` file is flocked while the writer lives (released however the process
/// ends). A new writer sweeps the folders whose lock it can take: their writer is gone, and
/// nothing in them is needed, since a writer sharing a catalog publishes before it commits
/// (staged content is never the only copy of a catalogued original).
public final class WriterStagingFolder: WriterCoordination {
    public let path: String
    private let descriptor: Int32
    static let namePrefix = "writer-"
    private static let ownerFile = "owner"

    /// Makes the folder under `parent` (LIBRARY/.tmp) and takes its lock; removes the folders
    /// of writers that are gone.
    public init(parent: String, library: String) throws {
        try LocalOriginalStore.makeDirectory(parent, library: library)
        Self.sweep(parent)
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(cString: host).replacingOccurrences(of: "/", with: "_")
        let folder = parent + "/" + Self.namePrefix + "\(hostName)-\(getpid())-" + String(UUID().uuidString.prefix(8)).lowercased()
        try LocalOriginalStore.makeDirectory(folder, library: library)
        let fd = open(folder + "/" + Self.ownerFile, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LibraryError.notWritable(path: folder, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            throw LibraryError.cannotLock(path: folder, reason: String(cString: strerror(code)))
        }
        path = folder
        descriptor = fd
    }

    deinit {
        Self.remove(path)
        close(descriptor)
    }

    /// Removes the folders under `parent` whose writer is gone (their lock is free).
    static func sweep(_ parent: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix(namePrefix) {
            let folder = parent + "/" + name
            let fd = open(folder + "/" + ownerFile, O_RDWR | O_CLOEXEC)
            if fd < 0 {
                // No owner file: a writer killed while making its folder (or one being made right
                // now, which takes its lock a moment later: leave folders younger than a minute).
                var info = stat()
                if stat(folder, &info) == 0, Double(info.st_mtim.tv_sec) < Date().timeIntervalSince1970 - 60 { remove(folder) }
                continue
            }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }  // its writer lives
            remove(folder)
        }
    }

    /// Removes a staging folder's files, then the folder (files only: a staging folder has no subfolders).
    private static func remove(_ folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            unlink(folder + "/" + name)
        }
        rmdir(folder)
    }
}
