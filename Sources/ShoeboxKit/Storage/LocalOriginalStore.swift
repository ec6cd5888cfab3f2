import CShim
import Foundation
import Synchronization

/// Originals in a local folder: `LIBRARY/originals/...`, staged in `LIBRARY/.tmp/`
/// (`LocalStagingArea`). `publish` renames staged content into place, read-only,
/// never replacing a file, through folder descriptors that never follow a link.
public final class LocalOriginalStore: LocallyStagedStore, @unchecked Sendable {
    public let layout: LibraryLayout
    public let staging: LocalStagingArea
    /// Folders below the root that originals are published into, open (see `openFolder`).
    private let openFolders = Mutex<[String: Int32]>([:])

    deinit {
        openFolders.withLock { folders in
            for fd in folders.values { close(fd) }
        }
    }

    /// `creating: false` for readers: no folder is made (a writer makes the missing ones).
    /// `staging`: where downloads are staged, LIBRARY/.tmp unless the writer has its own folder.
    public init(layout: LibraryLayout, creating: Bool = true, staging stagingFolder: String? = nil) throws {
        self.layout = layout
        if creating {
            try Self.makeDirectory(layout.root, library: layout.root)
            try Self.makeDirectory(layout.originals, library: layout.root)
        }
        staging = try LocalStagingArea(folder: stagingFolder ?? layout.staging, library: layout.root, creating: creating)
    }

    public var displayName: String { layout.root }
    /// A rename each: one at a time.
    public var publishConcurrency: Int { 1 }
    public var existenceIsCheap: Bool { true }

    public func removePartialDownloads() throws -> Int { try staging.removePartialDownloads() }

    @discardableResult
    public func publish(sha256: String, to path: String) throws -> PublishOutcome {
        let source = staging.stagedPath(sha256)
        let components = path.split(separator: "/").map(String.init)
        guard components.count >= 2, let name = components.last else { throw storeError(layout.absolute(path), "publish", EINVAL) }
        // Under the lock: the folder's descriptor stays open (and means that folder) until the rename is done.
        return try openFolders.withLock { folders in
            let folder = try openFolder(components.dropLast(), in: &folders)
            guard shim_renameat_noreplace(source, folder, name) == 0 else {
                let code = errno
                // The same content already in place (an earlier publish interrupted before it was recorded).
                guard code == EEXIST, Self.contentMatches(folder: folder, name: name, sha256: sha256) else {
                    throw storeError(layout.absolute(path), "publish", code)
                }
                unlink(source)
                return .alreadyPresent
            }
            return .created
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

    public func recordedSHA256(path: String) throws -> String? { nil }

    public func contentMatches(path: String, sha256: String) throws -> Bool {
        (try? SHA256Hasher.hashFile(atPath: layout.absolute(path)).sha256) == sha256
    }

    /// Whether anything has the name `path`, a symbolic link included, dangling or not: a
    /// name in use is never chosen for a new original (its publish would fail on it every run).
    public func exists(path: String) throws -> Bool {
        var info = stat()
        return lstat(layout.absolute(path), &info) == 0
    }

    public func info(path: String) throws -> StoredOriginal? {
        var info = stat()
        guard stat(layout.absolute(path), &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw POSIXFileError(path: layout.absolute(path), operation: "read", code: errno)
        }
        let file = LibraryFile(path: path, info: info)
        return StoredOriginal(path: path, bytes: file.bytes, modified: file.modified)
    }

    public func read(path: String, offset: Int64, count: Int) throws -> [UInt8] {
        let absolute = layout.absolute(path)
        let fd = open(absolute, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw POSIXFileError(path: absolute, operation: "open", code: errno) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw POSIXFileError(path: absolute, operation: "read", code: errno) }
            if got == 0 { break }
            done += got
        }
        bytes.removeSubrange(done...)
        return bytes
    }

    public func stream(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let absolute = layout.absolute(path)
        let fd = open(absolute, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw POSIXFileError(path: absolute, operation: "open", code: errno) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got = Glibc.read(fd, buffer.baseAddress!, buffer.count)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw POSIXFileError(path: absolute, operation: "read", code: errno) }
            if got == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
        }
    }

    public func withLocalFile<T>(path: String, _ body: (String) throws -> T) throws -> T {
        try body(layout.absolute(path))
    }

    public func list(under folder: String, _ each: (StoredOriginal) throws -> Void) throws {
        var failure: Error?
        let unreadable = DirectoryWalker.walk(layout.absolute(folder)) { entry in
            guard failure == nil, let name = String(validating: entry.relativePath, as: UTF8.self) else { return }
            let file = LibraryFile(path: folder + "/" + name, info: entry.info)
            guard file.isRegular else { return }
            do { try each(StoredOriginal(path: file.path, bytes: file.bytes, modified: file.modified)) } catch { failure = error }
        }
        if let failure { throw failure }
        if let denied = unreadable.first {
            let shown = denied.relativePath.isEmpty ? folder : folder + "/" + DirectoryWalker.shown(denied.relativePath)
            throw POSIXFileError(path: layout.absolute(shown), operation: "list", code: denied.code)
        }
    }

    public func remove(path: String) throws {
        guard unlink(layout.absolute(path)) == 0 || errno == ENOENT else {
            throw POSIXFileError(path: layout.absolute(path), operation: "remove", code: errno)
        }
    }

    public func setAside(path: String, to aside: String) throws {
        let components = aside.split(separator: "/").map(String.init)
        guard components.count >= 2, let name = components.last else { throw storeError(layout.absolute(aside), "set aside", EINVAL) }
        try openFolders.withLock { folders in
            let folder = try openFolder(components.dropLast(), in: &folders)
            guard shim_renameat_noreplace(layout.absolute(path), folder, name) == 0 else {
                throw storeError(layout.absolute(aside), "set aside", errno)
            }
            fsync(folder)
        }
    }

    public func location(of path: String) -> String {
        layout.absolute(path)
    }

    private func storeError(_ path: String, _ operation: String, _ code: Int32) -> Error {
        staging.error(path, operation, code)
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
