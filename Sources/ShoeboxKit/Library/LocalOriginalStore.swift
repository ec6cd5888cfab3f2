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
    private let knownFolders = Mutex<Set<String>>([])
    private static let partialSuffix = ".part"
    private static let stagedSuffix = ".staged"

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
        let target = layout.absolute(path)
        try makeFolder(FolderPath.containing(target))
        guard shim_rename_noreplace(source, target) == 0 else {
            let code = errno
            // The same content already in place (an earlier publish interrupted before it was recorded).
            guard code == EEXIST, (try? SHA256Hasher.hashFile(atPath: target).sha256) == sha256 else {
                throw storeError(target, "publish", code)
            }
            unlink(source)
            return
        }
    }

    /// mkdir -p, remembering the date folders already made in this run.
    private func makeFolder(_ path: String) throws {
        guard !knownFolders.withLock({ $0.contains(path) }) else { return }
        try Self.makeDirectory(path, library: layout.root)
        knownFolders.withLock { _ = $0.insert(path) }
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
