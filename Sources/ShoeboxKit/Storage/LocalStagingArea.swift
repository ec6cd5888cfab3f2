import Foundation
import Synchronization

/// Downloads in progress and content not yet published, in a local folder
/// (`LIBRARY/.tmp/`), whatever store the originals go to: the staging side of
/// `LocalOriginalStore` and of `S3OriginalStore`.
///
/// Downloads stream into `<random>.part`; complete content becomes `<sha256>.staged`,
/// whose sync starts at once in the background; `sync` waits for the whole batch's
/// syncs, then syncs the folder once. Content staged elsewhere (a large body streamed into
/// an object store's upload) is noted as `<sha256>.remote`, holding where it is. The
/// `.part`, `.staged` and `.remote` names are this type's alone.
public final class LocalStagingArea: UploadStaging, @unchecked Sendable {
    public let folder: String
    /// The library folder, for "disk full" messages.
    private let library: String
    /// Syncs staged files as they come, and closes them when the batch is synced.
    private let syncer = BackgroundSyncer()
    /// Staging files handed out and not yet staged or discarded: a second discard of one
    /// (an error path that drops it twice) must not close a descriptor number that was
    /// reused meanwhile.
    private let live = Mutex<Set<String>>([])
    /// Staging names: one random prefix for the process, then a counter (a UUID per file read
    /// /dev/urandom each time: three system calls a download). O_EXCL still guards against a clash.
    private static let namePrefix = UUID().uuidString.lowercased() + "-"
    private static let nameCounter = Atomic<UInt64>(0)
    private static let partialSuffix = ".part"
    private static let stagedSuffix = ".staged"
    private static let remoteSuffix = ".remote"

    /// `creating: false` for readers: nothing is made.
    public init(folder: String, library: String, creating: Bool = true) throws {
        self.folder = folder
        self.library = library
        if creating { try LocalOriginalStore.makeDirectory(folder, library: library) }
    }

    /// Whether a file name in a staging folder is a partial download (verify's notices).
    public static func isPartialDownload(name: String) -> Bool {
        name.hasSuffix(partialSuffix)
    }

    /// The hash whose content a staging file name holds (`<sha256>.staged`), nil for others.
    public static func stagedHash(name: String) -> String? {
        for suffix in [stagedSuffix, remoteSuffix] where name.hasSuffix(suffix) { return String(name.dropLast(suffix.count)) }
        return nil
    }

    public func makeStagingFile() throws -> StagingFile {
        for _ in 0..<8 {
            let path = newPartialPath()
            // Created read-only: this descriptor may still write, and the original
            // never needs a chmod after publishing.
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
            if fd >= 0 {
                live.withLock { _ = $0.insert(path) }
                return StagingFile(path: path, descriptor: fd)
            }
            if errno != EEXIST { throw error(path, "create", errno) }
        }
        throw error(folder, "create a staging file in", EEXIST)
    }

    /// A staging file that is a hard link to `source` (`import --link`): the original will be
    /// the source file itself, made read-only (which the source shares). Throws the errno of
    /// a link that cannot be made (EXDEV: another file system).
    public func makeStagingLink(to source: String) throws -> StagingFile {
        let path = newPartialPath()
        guard link(source, path) == 0 else { throw POSIXFileError(path: source, operation: "link", code: errno) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            unlink(path)
            throw POSIXFileError(path: source, operation: "open", code: code)
        }
        fchmod(fd, 0o444)
        live.withLock { _ = $0.insert(path) }
        return StagingFile(path: path, descriptor: fd)
    }

    /// A fresh `.part` name in the folder.
    private func newPartialPath() -> String {
        let number = Self.nameCounter.add(1, ordering: .relaxed).newValue
        return folder + "/" + Self.namePrefix + String(number) + Self.partialSuffix
    }

    public func discard(_ file: StagingFile) {
        guard live.withLock({ $0.remove(file.path) }) != nil else { return }
        close(file.descriptor)
        unlink(file.path)
    }

    public func stage(_ file: StagingFile, sha256: String) throws {
        live.withLock { _ = $0.remove(file.path) }
        let target = stagedPath(sha256)
        guard rename(file.path, target) == 0 else {
            let code = errno
            close(file.descriptor)
            unlink(file.path)
            throw error(target, "stage", code)
        }
        unlink(referencePath(sha256))
        syncer.start(file.descriptor)
    }

    public func sync() throws {
        if let code = syncer.finish() { throw error(folder, "sync", code) }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw error(folder, "open", errno) }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw error(folder, "sync", errno) }
    }

    /// The file holding staged content `sha256`.
    public func stagedPath(_ sha256: String) -> String {
        folder + "/" + sha256 + Self.stagedSuffix
    }

    /// Notes that content `sha256` is staged at `reference` (an object store's key), durably
    /// after the next `sync`, replacing any note or file staged as that content before.
    public func stageReference(sha256: String, reference: String) throws {
        let path = referencePath(sha256)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o444)
        guard fd >= 0 else { throw error(path, "create", errno) }
        let bytes = Array(reference.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        guard written == bytes.count else {
            let code = written < 0 ? errno : EIO
            close(fd)
            unlink(path)
            throw error(path, "write", code)
        }
        unlink(stagedPath(sha256))
        syncer.start(fd)
    }

    /// Where content `sha256` is staged when it is staged elsewhere (`stageReference`), else nil.
    public func stagedReference(_ sha256: String) -> String? {
        guard let data = FileManager.default.contents(atPath: referencePath(sha256)),
              let text = String(data: data, encoding: .utf8), !text.isEmpty else { return nil }
        return text
    }

    /// Every reference noted (`stageReference`), with the hash of its content.
    public func stagedReferences() throws -> [(sha256: String, reference: String)] {
        try entries().filter { $0.hasSuffix(Self.remoteSuffix) }.compactMap { name in
            let sha256 = String(name.dropLast(Self.remoteSuffix.count))
            return stagedReference(sha256).map { (sha256, $0) }
        }
    }

    private func referencePath(_ sha256: String) -> String {
        folder + "/" + sha256 + Self.remoteSuffix
    }

    public func discardStaged(sha256: String) {
        unlink(stagedPath(sha256))
        unlink(referencePath(sha256))
    }

    public func pendingStaged() throws -> [String] {
        Array(Set(try entries().compactMap(Self.stagedHash(name:)))).sorted()
    }

    public func stagedContentMatches(sha256: String) -> Bool {
        (try? SHA256Hasher.hashFile(atPath: stagedPath(sha256)).sha256) == sha256
    }

    public func removePartialDownloads() throws -> Int {
        var removed = 0
        for name in try entries() where name.hasSuffix(Self.partialSuffix) {
            if unlink(folder + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    private func entries() throws -> [String] {
        guard access(folder, F_OK) == 0 else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw LibraryError.notWritable(path: folder, reason: "cannot list it")
        }
    }

    func error(_ path: String, _ operation: String, _ code: Int32) -> Error {
        if code == ENOSPC || code == EDQUOT { return LibraryError.diskFull(path: library) }
        return POSIXFileError(path: path, operation: operation, code: code)
    }
}
