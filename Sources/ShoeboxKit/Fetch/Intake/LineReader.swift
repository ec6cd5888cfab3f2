import Foundation

/// Reads a file (or stdin) line by line in 64 KiB chunks. Memory stays bounded
/// whatever the input: a line longer than `maxLineLength` (a photo or a video
/// given as the list, say) is skipped to its end, not held.
final class LineReader {
    enum Line: Equatable {
        case text(String)
        /// A line over the limit: its first bytes, and its length.
        case tooLong(start: String, bytes: Int)
    }

    static let chunkSize = 65536
    let maxLineLength: Int
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let name: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: LineReader.chunkSize)
    /// The most bytes held at once so far (for tests).
    private(set) var peakBuffered = 0

    init(path: String, maxLineLength: Int = 1 << 20) throws {
        name = path
        self.maxLineLength = maxLineLength
        if path == "-" {
            fd = STDIN_FILENO
            ownsDescriptor = false
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw URLListReader.ReadError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
            ownsDescriptor = true
        }
    }

    /// Reads an open descriptor it does not own (a pipe, for tests).
    init(descriptor: Int32, name: String, maxLineLength: Int = 1 << 20) {
        self.name = name
        self.maxLineLength = maxLineLength
        fd = descriptor
        ownsDescriptor = false
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    func nextLine() throws -> Line? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                let length = newline - start
                if length > maxLineLength { return .tooLong(start: shownStart, bytes: length) }
                return .text(String(decoding: buffer[start..<newline], as: UTF8.self))
            }
            if buffer.count - start > maxLineLength { return try skipLongLine() }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return .text(line)
            }
            try fill()
        }
    }

    /// Drops the rest of a line already over the limit, reading on to its end.
    private func skipLongLine() throws -> Line {
        let shown = shownStart
        var bytes = buffer.count - start
        start = buffer.count
        while !atEnd {
            try fill()
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                bytes += newline - start
                start = newline + 1
                break
            }
            bytes += buffer.count - start
            start = buffer.count
        }
        return .tooLong(start: shown, bytes: bytes)
    }

    /// What one read gives before any line is taken (stdin's first bytes, at most
    /// `limit`), without waiting for more: a slow producer's first URL is not held up.
    func firstBytes(limit: Int) throws -> ArraySlice<UInt8> {
        if buffer.isEmpty && !atEnd { try fill() }
        return buffer[start..<min(buffer.count, start + limit)]
    }

    /// The first bytes of the line at `start`, to name it in a message.
    private var shownStart: String {
        String(decoding: buffer[start..<min(buffer.count, start + 60)], as: UTF8.self)
    }

    private func fill() throws {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw URLListReader.ReadError.readFailed(path: name, reason: String(cString: strerror(errno)))
            }
            if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<count]) }
            peakBuffered = max(peakBuffered, buffer.count)
            return
        }
    }
}
