import CShim
import Foundation

/// Writes one transfer's body to its staging file and computes its SHA-256.
///
/// The network thread only copies the bytes into a page-aligned buffer. A full
/// buffer is hashed on a hashing thread, then written on an output thread with
/// direct I/O: the bytes go from the buffer to the disk, skipping the page-cache
/// copy and the later writeback, which on the 12 MP bench set cost more CPU than
/// hashing them. The first buffer goes through the page cache, so reading the
/// metadata back finds it in memory; so does a body that fits in one buffer,
/// written in one call at the end. File systems without direct I/O get the
/// page cache for every write.
final class BodyWriter: @unchecked Sendable {
    /// Each transfer has its own strand in each pool, so its buffers are hashed
    /// and written in order. Hashing gets a thread per core (up to 8, some
    /// 12 GB/s); the output threads bound the writes blocked in the kernel
    /// however many transfers run. Not Dispatch: see `WorkerPool`.
    private static let hashers = WorkerPool(name: "shoebox-hash", threads: min(8, ParallelLoop.defaultJobs))
    private static let writers = WorkerPool(name: "shoebox-output", threads: 8)
    /// Set once a file system refused direct I/O.
    private static let directRefused = ManagedAtomicFlag()

    let file: StagingFile
    private let buffers: BufferPool
    private let directIO: Bool
    private let hashing = WorkerPool.Strand()
    private let output = WorkerPool.Strand()
    private let hasher = SHA256Hasher()
    /// The buffer being filled, and how far (network thread).
    private var buffer: UnsafeMutableRawPointer?
    private var filled = 0
    /// Bytes handed to the queue (network thread).
    private var submitted: Int64 = 0
    /// Whether the descriptor has O_DIRECT set, and whether a direct write
    /// succeeded on it (output thread).
    private var direct = false
    private var directWorked = false
    private let lock = NSLock()
    private var failure: Error?
    private var abandoned = false
    private var directWriteCount = 0

    /// `directIO: false` writes through the page cache only (as on a file
    /// system that refuses direct I/O).
    init(file: StagingFile, buffers: BufferPool, directIO: Bool = true) {
        self.file = file
        self.buffers = buffers
        self.directIO = directIO
    }

    /// Writes made with direct I/O so far (for tests).
    var directWrites: Int { lock.withLock { directWriteCount } }

    /// Whether writes are still queued: then `whenWritten` tells when `finish`
    /// will not wait (network thread).
    var hasQueuedWrites: Bool { submitted > 0 }

    /// Takes the next bytes of the body. Throws the first write failure so far.
    func append(_ data: UnsafeRawBufferPointer) throws {
        if let failure = currentFailure { throw failure }
        var rest = data
        while let source = rest.baseAddress, !rest.isEmpty {
            let target = buffer ?? buffers.take(for: submitted == 0 ? .start : .rest)
            buffer = target
            let count = min(rest.count, buffers.size - filled)
            (target + filled).copyMemory(from: source, byteCount: count)
            filled += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if filled == buffers.size { submitBuffer() }
        }
    }

    /// Submits what is left and calls `done` (on another thread) once every
    /// write has finished.
    func whenWritten(_ done: @escaping @Sendable () -> Void) {
        if buffer != nil { submitBuffer() }
        Self.hashers.async(on: hashing) { [self] in Self.writers.async(on: output, done) }
    }

    /// Writes what has been appended and waits for it, without ending the hash: the body
    /// goes on with more `append`s (a resumed transfer's rest). Throws the first write failure.
    func flush() throws {
        if buffer != nil { submitBuffer() }
        Self.hashers.sync(on: hashing) {}
        Self.writers.sync(on: output) {}
        if let failure = currentFailure { throw failure }
    }

    /// Bytes appended so far.
    var length: Int64 { submitted + Int64(filled) }

    /// Writes what is left, waits for the queued writes, and returns the body's
    /// SHA-256; throws the first write failure.
    func finish() throws -> String {
        if let buffer, submitted == 0 {
            let body = UnsafeRawBufferPointer(start: buffer, count: filled)
            hasher.update(body)
            do { try writeAll(body, at: 0) } catch { fail(error) }
            releaseBuffer()
        } else if buffer != nil {
            submitBuffer()
        }
        let digest = Self.hashers.sync(on: hashing) { [hasher] in hasher.finalizeHex() }
        Self.writers.sync(on: output) {}
        if let failure = currentFailure { throw failure }
        return digest
    }

    /// Drops the writes still queued and waits for the one running, so the file
    /// can be closed and removed safely.
    func abandon() {
        lock.withLock { abandoned = true }
        releaseBuffer()
        Self.hashers.sync(on: hashing) {}
        Self.writers.sync(on: output) {}
    }

    private func releaseBuffer() {
        if let buffer { buffers.give(buffer) }
        buffer = nil
        filled = 0
    }

    private func submitBuffer() {
        guard let current = buffer else { return }
        // Only the queues touch the buffer from here until it is given back.
        nonisolated(unsafe) let chunk = current
        let length = filled, offset = submitted
        buffer = nil
        filled = 0
        submitted += Int64(length)
        Self.hashers.async(on: hashing) { [self] in
            guard isLive else { return buffers.give(chunk) }
            hasher.update(UnsafeRawBufferPointer(start: chunk, count: length))
            Self.writers.async(on: output) { [self] in
                defer { buffers.give(chunk) }
                guard isLive else { return }
                let bytes = UnsafeRawBufferPointer(start: chunk, count: length)
                do { try write(bytes, at: offset) } catch { fail(error) }
            }
        }
    }

    /// Bytes at `offset` of the body: to the staging file, but those past the head of a
    /// file that spills (a remote store's large body) go on into its upload.
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        guard let spill = file.spill else { return try writeToFile(bytes, at: offset) }
        let head = Int(max(0, min(Int64(bytes.count), spill.headLimit - offset)))
        if head > 0 { try writeToFile(UnsafeRawBufferPointer(rebasing: bytes[..<head]), at: offset) }
        if head < bytes.count { try spill.append(UnsafeRawBufferPointer(rebasing: bytes[head...])) }
    }

    /// Whole blocks straight to the disk, except at the start of the body; a
    /// tail shorter than a block (the end of the body) through the page cache.
    private func writeToFile(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        let blocks = bytes.count / BufferPool.alignment * BufferPool.alignment
        // After a resume the buffers start wherever the first attempt stopped: direct I/O
        // needs aligned offsets, so such a body goes through the page cache.
        guard offset > 0, offset % Int64(BufferPool.alignment) == 0, blocks > 0, enableDirect() else {
            disableDirect()
            return try writeAll(bytes, at: offset)
        }
        do {
            try writeAll(UnsafeRawBufferPointer(rebasing: bytes[..<blocks]), at: offset)
            directWorked = true
            lock.withLock { directWriteCount += 1 }
        } catch let error as POSIXFileError where error.code == EINVAL && !directWorked {
            // The file system took the flag but refuses the writes: the page cache from now on.
            Self.directRefused.set()
            disableDirect()
            return try writeAll(bytes, at: offset)
        }
        guard blocks < bytes.count else { return }
        disableDirect()
        try writeAll(UnsafeRawBufferPointer(rebasing: bytes[blocks...]), at: offset + Int64(blocks))
    }

    private func enableDirect() -> Bool {
        if direct { return true }
        guard directIO, !Self.directRefused.isSet else { return false }
        guard shim_set_direct_io(file.descriptor, 1) == 0 else {
            Self.directRefused.set()
            return false
        }
        direct = true
        return true
    }

    private func disableDirect() {
        guard direct else { return }
        shim_set_direct_io(file.descriptor, 0)
        direct = false
    }

    /// pwrite until done. A short direct write (the disk filling up) leaves the
    /// rest unaligned: it goes on through the page cache, which reports the error.
    private func writeAll(_ bytes: UnsafeRawBufferPointer, at start: Int64) throws {
        var done = 0
        while done < bytes.count {
            let count = pwrite(file.descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(start) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ENOSPC || errno == EDQUOT { throw LibraryError.diskFull(path: file.path) }
                throw POSIXFileError(path: file.path, operation: "write", code: errno)
            }
            done += count
            if done < bytes.count { disableDirect() }
        }
    }

    private var isLive: Bool { lock.withLock { !abandoned && failure == nil } }
    private var currentFailure: Error? { lock.withLock { failure } }

    private func fail(_ error: Error) {
        lock.withLock { if failure == nil { failure = error } }
    }
}
