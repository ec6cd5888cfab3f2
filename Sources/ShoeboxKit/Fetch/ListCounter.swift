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

    /// Lines that are neither blank nor comments.
    static func countURLLines(_ path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var count = 0
        var lineHasContent = false
        var lineStarted = false
        var isComment = false
        var atStart = true
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            // A byte order mark is not content (URLListReader drops it too).
            let first = atStart && buffer[0..<n].starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            atStart = false
            for byte in buffer[first..<n] {
                switch byte {
                case 0x0A:
                    if lineHasContent && !isComment { count += 1 }
                    lineHasContent = false
                    lineStarted = false
                    isComment = false
                case 0x20, 0x09, 0x0D:
                    continue
                default:
                    if !lineStarted {
                        lineStarted = true
                        isComment = byte == UInt8(ascii: "#")
                    }
                    lineHasContent = true
                }
            }
        }
        if lineHasContent && !isComment { count += 1 }
        return count
    }
}
