import Foundation

/// The one-writer-per-library lock: an `flock` on LIBRARY/.lock, released when
/// the process ends however it ends (so a `kill -9` never leaves a stale lock).
public final class LibraryLock {
    public enum Mode {
        case exclusive, shared
    }

    private let descriptor: Int32

    /// Takes the lock; with `wait`, waits until the holder is done, else fails at once with
    /// `LibraryError.locked`. A wait ends with `LibraryError.waitInterrupted` once `isCancelled`
    /// says so (Ctrl-C): it polls, since a blocking `flock` would outlast the signal.
    /// `onWait` is called once, when the wait begins, with the holder when known ("pid 1234").
    public init(layout: LibraryLayout, mode: Mode = .exclusive, wait: Bool = false,
                isCancelled: () -> Bool = { false }, onWait: (String?) -> Void = { _ in }) throws {
        let path = layout.lockFile
        let flags = mode == .exclusive ? O_RDWR | O_CREAT | O_CLOEXEC : O_RDONLY | O_CREAT | O_CLOEXEC
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else {
            throw LibraryError.notWritable(path: layout.root, reason: String(cString: strerror(errno)))
        }
        let operation = (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        var waited = false
        while flock(fd, operation) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                close(fd)
                throw LibraryError.cannotLock(path: path, reason: String(cString: strerror(code)))
            }
            guard wait else {
                let holder = Self.describeHolder(fd)
                close(fd)
                throw LibraryError.locked(path: layout.root, holder: holder)
            }
            if !waited {
                waited = true
                onWait(Self.writer(of: layout) ?? Self.describeHolder(fd))
            }
            if isCancelled() {
                close(fd)
                throw LibraryError.waitInterrupted(path: layout.root)
            }
            usleep(Self.pollInterval)
        }
        descriptor = fd
        if mode == .exclusive { recordHolder() }
    }

    /// How often a waiting process tries the lock again, in microseconds.
    static let pollInterval: useconds_t = 50_000

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private func recordHolder() {
        let text = "pid \(getpid())\n"
        ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    /// Who holds the lock exclusively right now, a writer ("pid N", or "another process");
    /// nil when nobody does. The lock is not taken, not even for an instant, so a writer
    /// starting meanwhile is never refused: Linux lists the holders of `flock` locks, with
    /// their pids, in /proc/locks. Without that file, a shared lock is tried and dropped at
    /// once, and the holder is the one the lock file names.
    public static func writer(of layout: LibraryLayout) -> String? {
        let fd = open(layout.lockFile, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        if let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) {
            let dev = UInt64(info.st_dev)
            let major = ((dev >> 8) & 0xFFF) | ((dev >> 32) & ~0xFFF)
            let minor = (dev & 0xFF) | ((dev >> 12) & ~0xFF)
            let file = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(info.st_ino))
            // "1: FLOCK  ADVISORY  WRITE 1460 fe:00:16220531 0 EOF"; waiters' lines have "->".
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == file {
                    return "pid \(fields[4])"
                }
            }
            return nil
        }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return errno == EWOULDBLOCK ? describeHolder(fd) ?? "another process" : nil
    }

    private static func describeHolder(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
