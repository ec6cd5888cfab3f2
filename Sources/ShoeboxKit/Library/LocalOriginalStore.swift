import CShim
import Foundation
import Synchronization

/// Originals in a local folder: `LIBRARY/originals/...`, staged in `LIBRARY/.tmp/`.
///
/// Downloads stream into `.tmp/<random>.part`; complete content becomes
/// `.tmp/<sha256>.staged`, whose sync starts at once in the background;
/// `syncStaged` waits for the whole batch's syncs, then syncs the staging folder
/// once; `publish` renames it into place, read-only, never replacing a file.
public final class LocalOriginalStore: OriginalStore {
    public let layout: LibraryLayout
    /// Syncs staged files as they come, and closes them when the batch is synced.
    private let syncer = BackgroundSyncer()
    /// Folders below the root that originals are published into, open (see `openFolder`).
    private let openFolders = Mutex<[String: Int32]>([:])
    private static let partialSuffix = ".part"
    private static let stagedSuffix = ".staged"

    deinit {
        openFolders.withLock { folders in
            for fd in folders.values { close(fd) }
        }
    }

    public init(layout: LibraryLayout) throws {
        self.layout = layout
        try Self.makeDirectory(layout.root, library: layout.root)
        try Self.makeDirectory(layout.originals, library: layout.root)
        try Self.makeDirectory(layout.staging, library: layout.root)
    }

    public func makeStagingFile() throws -> StagingFile {
        for _ in 0..<8 {
            let path = layout.staging + "/" + UUID().uuidString.lowercased() + Self.partialSuffix
            // Created read-only: this descriptor may still write, and the original
            // never needs a chmod after publishing.
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
            if fd >= 0 { return StagingFile(path: path, descriptor: fd) }
            if errno != EEXIST { throw storeError(path, "create", errno) }
        }
        throw storeError(layout.staging, "create a staging file in", EEXIST)
    }

    public func stage(_ file: StagingFile, sha256: String) throws {
        let target = stagedPath(sha256)
        guard rename(file.path, target) == 0 else {
            let code = errno
            close(file.descriptor)
            unlink(file.path)
            throw storeError(target, "stage", code)
        }
        syncer.start(file.descriptor)
    }

    public func syncStaged() throws {
        if let code = syncer.finish() { throw storeError(layout.staging, "sync", code) }
        let directory = open(layout.staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw storeError(layout.staging, "open", errno) }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw storeError(layout.staging, "sync", errno) }
    }

    public func publish(sha256: String, to path: String) throws {
        let source = stagedPath(sha256)
        let components = path.split(separator: "/").map(String.init)
        guard components.count >= 2, let name = components.last else { throw storeError(layout.absolute(path), "publish", EINVAL) }
        // Under the lock: the folder's descriptor stays open (and means that folder) until the rename is done.
        try openFolders.withLock { folders in
            let folder = try openFolder(components.dropLast(), in: &folders)
            guard shim_renameat_noreplace(source, folder, name) == 0 else {
                let code = errno
                // The same content already in place (an earlier publish interrupted before it was recorded).
                guard code == EEXIST, Self.contentMatches(folder: folder, name: name, sha256: sha256) else {
                    throw storeError(layout.absolute(path), "publish", code)
                }
                unlink(source)
                return
            }
        }
    }

    /// Whether the regular file `name` in `folder` (never through a link) holds `sha256`.
    private static func contentMatches(folder: Int32, name: String, sha256: String) -> Bool {
        let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return (try? SHA256Hasher.hashFile(atPath: "/proc/self/fd/\(fd)").sha256) == sha256
    }

    /// The descriptor of a folder below the library root (made when missing), reached one
    /// component at a time with O_NOFOLLOW: a symbolic link inside the library (say
    /// `originals/2020` pointing elsewhere) is refused, never written through. Descriptors
    /// are kept for the run (at most `maxOpenFolders`).
    private func openFolder(_ components: ArraySlice<String>, in folders: inout [String: Int32]) throws -> Int32 {
        let key = components.joined(separator: "/")
        if let fd = folders[key] { return fd }
        if folders.count >= Self.maxOpenFolders {
            for fd in folders.values { close(fd) }
            folders.removeAll()
        }
        var fd = open(layout.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw storeError(layout.root, "open", errno) }
        var walked = layout.root
        for component in components {
            walked += "/" + component
            let next: Int32
            do {
                next = try Self.openChild(component, of: fd, path: walked, library: layout.root)
            } catch {
                close(fd)
                throw error
            }
            close(fd)
            fd = next
        }
        folders[key] = fd
        return fd
    }

    private static let maxOpenFolders = 256

    /// The folder `name` inside `parent`, made when missing; never through a symbolic link.
    private static func openChild(_ name: String, of parent: Int32, path: String, library: String) throws -> Int32 {
        for _ in 0..<4 {
            let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 { return fd }
            let code = errno
            switch code {
            case ENOENT:
                if mkdirat(parent, name, 0o755) != 0 && errno != EEXIST {
                    let failure = errno
                    if failure == ENOSPC || failure == EDQUOT { throw LibraryError.diskFull(path: library) }
                    throw LibraryError.cannotCreate(path: path, reason: String(cString: strerror(failure)))
                }
            case ELOOP, ENOTDIR:
                var info = stat()
                if fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFLNK {
                    throw LibraryError.symbolicLinkInside(path: path)
                }
                throw LibraryError.fileInTheWay(path: path)
            case EINTR: continue
            default:
                throw LibraryError.cannotCreate(path: path, reason: String(cString: strerror(code)))
            }
        }
        throw LibraryError.cannotCreate(path: path, reason: "it keeps changing")
    }

    public func discard(_ file: StagingFile) {
        close(file.descriptor)
        unlink(file.path)
    }

    public func discardStaged(sha256: String) {
        unlink(stagedPath(sha256))
    }

    public func pendingStaged() throws -> [String] {
        try stagingEntries().filter { $0.hasSuffix(Self.stagedSuffix) }.map { String($0.dropLast(Self.stagedSuffix.count)) }
    }

    public func stagedContentMatches(sha256: String) -> Bool {
        (try? SHA256Hasher.hashFile(atPath: stagedPath(sha256)).sha256) == sha256
    }

    public func removePartialDownloads() throws -> Int {
        var removed = 0
        for name in try stagingEntries() where name.hasSuffix(Self.partialSuffix) {
            if unlink(layout.staging + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    public func exists(path: String) -> Bool {
        access(layout.absolute(path), F_OK) == 0
    }

    public func localPath(for path: String) -> String {
        layout.absolute(path)
    }

    private func stagedPath(_ sha256: String) -> String {
        layout.staging + "/" + sha256 + Self.stagedSuffix
    }

    private func stagingEntries() throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: layout.staging)
        } catch {
            throw LibraryError.notWritable(path: layout.staging, reason: "cannot list it")
        }
    }

    private func storeError(_ path: String, _ operation: String, _ code: Int32) -> Error {
        if code == ENOSPC || code == EDQUOT { return LibraryError.diskFull(path: layout.root) }
        return POSIXFileError(path: path, operation: operation, code: code)
    }

    /// mkdir -p, with errors that say what to do.
    static func makeDirectory(_ path: String, library: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw path == library ? LibraryError.notADirectory(path: path) : LibraryError.fileInTheWay(path: path)
            }
            return
        }
        if let code = FolderPath.create(path) {
            if code == ENOSPC || code == EDQUOT { throw LibraryError.diskFull(path: library) }
            let reason = code == ENOTDIR
                ? "a part of the path is a file, not a folder" : String(cString: strerror(code))
            throw LibraryError.cannotCreate(path: path, reason: reason)
        }
    }
}
