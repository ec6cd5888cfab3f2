#if canImport(Glibc)
import Glibc
#endif

/// Random access to the bytes of a file or of a buffer, for the container readers.
/// Reads only what is asked for; never the whole file.
protocol ByteSource {
    /// Total number of bytes.
    var size: Int { get }
    /// Up to `count` bytes starting at `offset`: fewer at the end of the data, none past it.
    func bytes(at offset: Int, count: Int) throws -> [UInt8]
}

extension ByteSource {
    /// Exactly `count` bytes at `offset`, or nil when the data ends first.
    func exactly(at offset: Int, count: Int) throws -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else { return nil }
        let result = try bytes(at: offset, count: count)
        return result.count == count ? result : nil
    }
}

/// Bytes held in memory (fuzzing, EXIF blocks, tests).
struct MemoryByteSource: ByteSource {
    let data: [UInt8]

    var size: Int { data.count }

    func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < data.count else { return [] }
        let end = offset + min(count, data.count - offset)
        return Array(data[offset..<end])
    }
}

/// An open file read with `pread` through one window of cached bytes, so that
/// walking small headers costs one system call per window. Not thread-safe:
/// each `MetadataReader.read` call owns its own instance.
final class FileByteSource: ByteSource {
    /// Large enough for the headers and EXIF of most photos in one read, small enough not to copy pixels.
    static let windowSize = 16 * 1024
    let path: String
    let size: Int
    private let descriptor: Int32
    private var window: [UInt8] = []
    private var windowStart = 0

    init(path: String) throws {
        self.path = path
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw MetadataError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw MetadataError.cannotOpen(path: path, reason: reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw MetadataError.notRegularFile(path: path)
        }
        descriptor = fd
        size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        if offset >= windowStart, offset + wanted <= windowStart + window.count {
            let start = offset - windowStart
            return Array(window[start..<start + wanted])
        }
        if wanted > Self.windowSize { return try readDirect(at: offset, count: wanted) }
        window = try readDirect(at: offset, count: min(Self.windowSize, size - offset))
        windowStart = offset
        return Array(window.prefix(wanted))
    }

    private func readDirect(at offset: Int, count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw MetadataError.readFailed(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            done += n
        }
        buffer.removeSubrange(done...)
        return buffer
    }
}
