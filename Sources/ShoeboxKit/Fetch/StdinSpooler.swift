import Foundation

/// Copies stdin to a temporary file, for `--strict`, which must read a list twice
/// (check every line, then fetch).
enum StdinSpooler {
    /// The temporary file's path, or nil when `isCancelled` turned true first (Ctrl-C
    /// while the list was still coming). The file is removed on any failure.
    static func spool(isCancelled: () -> Bool) throws -> String? {
        var template = Array((NSTemporaryDirectory() + "/shoebox-stdin-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard fd >= 0 else { throw POSIXFileError(path: path, operation: "create", code: errno) }
        defer { close(fd) }
        do {
            guard try copyStdin(to: fd, path: path, isCancelled: isCancelled) else {
                unlink(path)
                return nil
            }
        } catch {
            unlink(path)
            throw error
        }
        return path
    }

    /// False when cancelled before the end of stdin.
    private static func copyStdin(to fd: Int32, path: String, isCancelled: () -> Bool) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // Waits in short slices: with SIGINT trapped, a blocked read would not see Ctrl-C.
            var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            if isCancelled() { return false }
            let polled = poll(&ready, 1, 100)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }  // the signal that cancels ends a wait
            let n = read(STDIN_FILENO, &buffer, buffer.count)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n < 0 { throw URLListReader.ReadError.readFailed(path: "-", reason: String(cString: strerror(errno))) }
            if n == 0 { return true }
            try writeAll(buffer[0..<n], to: fd, path: path)
        }
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, to fd: Int32, path: String) throws {
        guard bytes.withUnsafeBytes({ POSIXWrite.all($0, to: fd) }) else {
            throw POSIXFileError(path: path, operation: "write", code: errno)
        }
    }
}
