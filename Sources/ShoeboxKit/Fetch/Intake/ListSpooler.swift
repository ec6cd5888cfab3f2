import Foundation

/// Copies a list that can be read only once (stdin, a pipe, `<(cmd)`, a FIFO) to a
/// temporary file, for `--strict`, which must read a list twice (check every line,
/// then fetch).
enum ListSpooler {
    /// The temporary file's path, or nil when `isCancelled` turned true first (Ctrl-C
    /// while the list was still coming). The file is removed on any failure.
    static func spool(_ list: String, isCancelled: () -> Bool) throws -> String? {
        // Not blocking: a FIFO with no writer yet would block open, where Ctrl-C is not seen.
        let input = list == "-" ? STDIN_FILENO : open(list, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard input >= 0 else { throw URLListReader.ReadError.cannotOpen(path: list, reason: String(cString: strerror(errno))) }
        defer { if input != STDIN_FILENO { close(input) } }
        var template = Array((NSTemporaryDirectory() + "/shoebox-list-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard fd >= 0 else { throw POSIXFileError(path: path, operation: "create", code: errno) }
        defer { close(fd) }
        do {
            guard try copy(input, named: list, to: fd, path: path, isCancelled: isCancelled) else {
                unlink(path)
                return nil
            }
        } catch {
            unlink(path)
            throw error
        }
        return path
    }

    /// False when cancelled before the end of the input. Throws `notText` as soon as the
    /// first bytes show binary data, rather than copying all of it first.
    private static func copy(_ input: Int32, named list: String, to fd: Int32, path: String, isCancelled: () -> Bool) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var head: [UInt8] = []
        var headChecked = false
        func checkHead(atEnd: Bool) throws {
            guard !headChecked, atEnd || head.count >= URLListReader.binarySampleSize else { return }
            headChecked = true
            if let what = URLListReader.binaryContent(head: head.prefix(URLListReader.binarySampleSize)) {
                throw URLListReader.ReadError.notText(path: URLListReader.shownName(list), what: what)
            }
        }
        while true {
            // Waits in short slices: with SIGINT trapped, a blocked read would not see Ctrl-C.
            // A FIFO whose writer has not come yet polls as not ready (no end of input).
            var ready = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            if isCancelled() { return false }
            let polled = poll(&ready, 1, 100)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }  // the signal that cancels ends a wait
            let n = read(input, &buffer, buffer.count)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n < 0 { throw URLListReader.ReadError.readFailed(path: list, reason: String(cString: strerror(errno))) }
            if n == 0 {
                try checkHead(atEnd: true)
                return true
            }
            if !headChecked { head += buffer[0..<min(n, URLListReader.binarySampleSize - head.count)] }
            try checkHead(atEnd: false)
            try writeAll(buffer[0..<n], to: fd, path: path)
        }
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, to fd: Int32, path: String) throws {
        guard bytes.withUnsafeBytes({ POSIXWrite.all($0, to: fd) }) else {
            throw POSIXFileError(path: path, operation: "write", code: errno)
        }
    }
}
