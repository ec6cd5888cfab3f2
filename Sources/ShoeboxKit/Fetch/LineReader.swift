import Foundation

/// Reads a file (or stdin) line by line in 64 KiB chunks.
final class LineReader {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let name: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    init(path: String) throws {
        name = path
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

    deinit {
        if ownsDescriptor { close(fd) }
    }

    func nextLine() throws -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            try fill()
        }
    }

    private func fill() throws {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw URLListReader.ReadError.readFailed(path: name, reason: String(cString: strerror(errno)))
            }
            if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<count]) }
            return
        }
    }
}
