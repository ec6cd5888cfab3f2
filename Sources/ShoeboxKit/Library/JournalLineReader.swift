import Foundation

/// Reads `journal.jsonl` line by line in blocks, so memory stays bounded whatever the
/// file's size: one block plus at most one line of `maxLineLength` bytes is held.
/// A longer line (no entry fetch writes comes near it: garbage, or a torn tail of a
/// runaway write) is not loaded: it is reported as `.overLong` with its length.
struct JournalLineReader {
    enum Line {
        /// The line's bytes, without its newline; valid only during the call.
        case text(UnsafeBufferPointer<UInt8>)
        /// A line longer than `maxLineLength`, skipped to its end.
        case overLong(bytes: Int)
    }

    /// 16 MiB: the longest entry fetch writes is a source with two URLs of at most 1 MiB each.
    static let maxLineLength = 16 << 20
    static let blockSize = 1 << 20

    let path: String
    var maxLineLength = JournalLineReader.maxLineLength
    var blockSize = JournalLineReader.blockSize

    init(path: String) {
        self.path = path
    }

    /// Calls `body` with each line (1-based number, empty lines included) in file order;
    /// a last line without its newline is passed too. A missing file has no lines.
    func forEachLine(_ body: (_ number: Int, _ line: Line) throws -> Void) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw JournalError.unreadable(path: path, detail: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var block = [UInt8](repeating: 0, count: max(1, blockSize))
        var pending: [UInt8] = []  // the start of a line that goes on in the next block
        var pendingBytes = 0  // its length, counted on once it is over the limit (then not held)
        var number = 0
        func finishPending() throws {
            number += 1
            if pendingBytes > maxLineLength {
                try body(number, .overLong(bytes: pendingBytes))
            } else {
                try pending.withUnsafeBufferPointer { try body(number, .text($0)) }
            }
            pending.removeAll(keepingCapacity: pending.count <= blockSize)
            pendingBytes = 0
        }
        func carry(_ bytes: UnsafeBufferPointer<UInt8>) {
            pendingBytes += bytes.count
            if pendingBytes > maxLineLength {
                pending = []
            } else {
                pending.append(contentsOf: bytes)
            }
        }
        while true {
            let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw JournalError.unreadable(path: path, detail: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            try block.withUnsafeBufferPointer { whole in
                let base = whole.baseAddress!
                var start = 0
                while start < count {
                    guard let found = memchr(base + start, 0x0A, count - start) else {
                        carry(UnsafeBufferPointer(start: base + start, count: count - start))
                        return
                    }
                    let end = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                    let piece = UnsafeBufferPointer(start: base + start, count: end - start)
                    if pendingBytes > 0 {
                        carry(piece)
                        try finishPending()
                    } else {
                        number += 1
                        if piece.count > maxLineLength {
                            try body(number, .overLong(bytes: piece.count))
                        } else {
                            try body(number, .text(piece))
                        }
                    }
                    start = end + 1
                }
            }
        }
        if pendingBytes > 0 { try finishPending() }
    }
}
