import Foundation

/// Counts the URL lines of list files up front (a fast byte scan), so progress
/// can show done/total. Stdin or a pipe cannot be counted ahead (what is read is
/// gone): then the total is unknown.
enum ListCounter {
    static func count(lists: [String], extra: Int) -> Int? {
        guard !lists.contains(where: URLListReader.isStream) else { return nil }
        var total = extra
        for path in lists {
            guard let count = countURLLines(path) else { return nil }
            total += count
        }
        return total
    }

    /// Lines that are neither blank nor comments, judged as `URLListReader.parse` judges them:
    /// white space is Unicode white space (a line of no-break spaces is blank, one starting with
    /// a form feed and `#` is a comment), so the progress total is the count the summary gives.
    static func countURLLines(_ path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // The list reader's chunk size: a 1 MiB buffer cost every run 256 zeroed pages (248 more
        // page faults for an empty list), and a list of a million lines counts no faster with it.
        var buffer = [UInt8](repeating: 0, count: LineReader.chunkSize)
        var line = LineStart()
        var count = 0
        var atStart = true
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            // A byte order mark is not content (URLListReader drops it too).
            let first = atStart && buffer[0..<n].starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            atStart = false
            for byte in buffer[first..<n] {
                if byte == 0x0A {
                    if line.isURLLine { count += 1 }
                    line = LineStart()
                } else {
                    line.add(byte)
                }
            }
        }
        if line.isURLLine { count += 1 }
        return count
    }

    /// What decides a line: its first character that is not white space. Bytes that are not
    /// ASCII before it (perhaps Unicode white space) are kept, a few, and decoded.
    struct LineStart {
        private var leading: [UInt8] = []
        /// The first ASCII byte that is not white space, once seen.
        private var firstASCII: UInt8?
        private static let leadingLimit = 64

        mutating func add(_ byte: UInt8) {
            guard firstASCII == nil else { return }
            switch byte {
            case 0x20, 0x09, 0x0B, 0x0C, 0x0D: return
            case 0x80...: if leading.count <= Self.leadingLimit { leading.append(byte) }
            default: firstASCII = byte
            }
        }

        /// Neither blank nor a comment.
        var isURLLine: Bool {
            let leadingIsSpace = leading.isEmpty
                || (leading.count <= Self.leadingLimit && String(decoding: leading, as: UTF8.self).trimmingWhitespace().isEmpty)
            guard leadingIsSpace else { return true }
            guard let firstASCII else { return false }
            return firstASCII != UInt8(ascii: "#")
        }
    }
}
