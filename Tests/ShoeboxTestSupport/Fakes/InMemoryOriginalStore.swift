import Foundation
import ShoeboxKit

/// A store whose originals are held in memory, for in-process tests of what writes to a
/// store. Bodies are still written into real staging files (the transfer engine's sink is
/// a file), in a temporary folder of this store's own; staged content is read into memory
/// at `stage`. `failPublish` makes `publish` of a path fail, as a lost bucket would.
public final class InMemoryOriginalStore: OriginalStore, @unchecked Sendable {
    public struct Failure: StoreUnavailable, CustomStringConvertible {
        public var description: String
        /// Set for a failure no later request would get past (the store went away).
        public var storeIsUnavailable = false
        public init(description: String, storeIsUnavailable: Bool = false) {
            self.description = description
            self.storeIsUnavailable = storeIsUnavailable
        }
    }

    public let folder: String
    private let lock = NSLock()
    private var staged: [String: Data] = [:]
    /// The originals, in a box another store may share (`init(sharingOriginalsWith:)`).
    private final class Shelf: @unchecked Sendable {
        let lock = NSLock()
        var originals: [String: Data] = [:]
    }
    private let shelf: Shelf
    private var originals: [String: Data] {
        get { shelf.lock.withLock { shelf.originals } }
        set { shelf.lock.withLock { shelf.originals = newValue } }
    }
    private var counter = 0
    /// Paths whose publish fails.
    public var failPublish: Set<String> = []
    /// Every publish fails as a store that went away.
    public var unavailable = false
    /// Every publish asked for, in order: (sha256, path).
    public private(set) var publishes: [(sha256: String, path: String)] = []
    /// Staging files handed out and not yet staged or discarded.
    public var openStagingFiles: Int { locked { handedOut.count } }
    private var handedOut: Set<String> = []

    public init() throws {
        folder = NSTemporaryDirectory() + "/shoebox-fake-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        shelf = Shelf()
    }

    /// A second writer's view of `other`'s originals: the same originals, its own staging.
    public init(sharingOriginalsWith other: InMemoryOriginalStore) throws {
        folder = NSTemporaryDirectory() + "/shoebox-fake-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        shelf = other.shelf
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The original at `path`, if any.
    public func contents(of path: String) -> Data? { locked { originals[path] } }
    /// Puts bytes at `path` directly (an original already there, or other bytes in the way).
    public func put(_ data: Data, at path: String) { locked { originals[path] = data } }
    /// Every original's path.
    public var paths: [String] { locked { originals.keys.sorted() } }

    public var displayName: String { "memory" }
    public var publishConcurrency: Int { 1 }
    /// Whether names are checked against the stored originals too (a local folder); false acts
    /// as a remote store does, whose names only the catalog knows.
    public var existenceIsCheap = true

    public func makeStagingFile() throws -> StagingFile {
        let path = locked { () -> String in
            counter += 1
            return folder + "/\(counter).part"
        }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path)") }
        locked { _ = handedOut.insert(path) }
        return StagingFile(path: path, descriptor: fd)
    }

    public func discard(_ file: StagingFile) {
        close(file.descriptor)
        unlink(file.path)
        locked { _ = handedOut.remove(file.path) }
    }

    public func stage(_ file: StagingFile, sha256: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file.path))
        discard(file)
        locked { staged[sha256] = data }
    }

    public func syncStaged() throws {}

    /// Called with the path at the start of each `publish`, outside the store's lock (for tests:
    /// another writer acting in between).
    public var beforePublish: ((String) throws -> Void)?

    @discardableResult
    public func publish(sha256: String, to path: String) throws -> PublishOutcome {
        try beforePublish?(path)
        return try locked {
            publishes.append((sha256, path))
            if unavailable { throw Failure(description: "the store went away", storeIsUnavailable: true) }
            if failPublish.contains(path) { throw Failure(description: "publish of \(path) refused") }
            guard let data = staged[sha256] else { throw Failure(description: "nothing staged as \(sha256)") }
            if let existing = originals[path] {
                guard existing == data else { throw Failure(description: "\(path) holds other bytes") }
                staged[sha256] = nil
                return .alreadyPresent
            }
            originals[path] = data
            staged[sha256] = nil
            return .created
        }
    }

    public func discardStaged(sha256: String) { locked { staged[sha256] = nil } }
    public func pendingStaged() throws -> [String] { locked { staged.keys.sorted() } }
    public func stagedContentMatches(sha256: String) -> Bool {
        locked {
            guard let data = staged[sha256] else { return false }
            let hasher = SHA256Hasher()
            hasher.update(data)
            return hasher.finalizeHex() == sha256
        }
    }
    public func removePartialDownloads() throws -> Int { 0 }

    public func recordedSHA256(path: String) throws -> String? { nil }
    public func contentMatches(path: String, sha256: String) throws -> Bool {
        locked {
            guard let data = originals[path] else { return false }
            let hasher = SHA256Hasher()
            hasher.update(data)
            return hasher.finalizeHex() == sha256
        }
    }
    public func exists(path: String) throws -> Bool { locked { originals[path] != nil } }
    public func info(path: String) throws -> StoredOriginal? {
        locked { originals[path].map { StoredOriginal(path: path, bytes: Int64($0.count), modified: 0) } }
    }

    public func read(path: String, offset: Int64, count: Int) throws -> [UInt8] {
        try locked {
            guard let data = originals[path] else { throw Failure(description: "no original at \(path)") }
            let start = Int(min(offset, Int64(data.count)))
            return [UInt8](data[start..<min(data.count, start + count)])
        }
    }

    public func stream(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let data = locked({ originals[path] }) else { throw Failure(description: "no original at \(path)") }
        try data.withUnsafeBytes { try body($0) }
    }

    public func withLocalFile<T>(path: String, _ body: (String) throws -> T) throws -> T {
        guard let data = locked({ originals[path] }) else { throw Failure(description: "no original at \(path)") }
        let local = folder + "/read-" + UUID().uuidString
        try data.write(to: URL(fileURLWithPath: local))
        defer { unlink(local) }
        return try body(local)
    }

    public func list(under folder: String, _ each: (StoredOriginal) throws -> Void) throws {
        let listed = locked { originals.filter { $0.key.hasPrefix(folder + "/") } }
        for (path, data) in listed { try each(StoredOriginal(path: path, bytes: Int64(data.count), modified: 0)) }
    }

    public func remove(path: String) throws { locked { _ = originals.removeValue(forKey: path) } }
    public func setAside(path: String, to aside: String) throws {
        try locked {
            guard originals[aside] == nil else { throw Failure(description: "\(aside) is taken") }
            originals[aside] = originals.removeValue(forKey: path)
        }
    }
    public func location(of path: String) -> String { "memory:" + path }
}
