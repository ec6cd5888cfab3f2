import Foundation

/// Copies stdin to a temporary file, for `--strict`, which must read a list twice
/// (check every line, then fetch).
enum StdinSpooler {
    static func spool() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/shoebox-stdin-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard fd >= 0 else { throw POSIXFileError(path: path, operation: "create", code: errno) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(STDIN_FILENO, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw URLListReader.ReadError.readFailed(path: "-", reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            var offset = 0
            while offset < n {
                let written = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + offset, n - offset) }
                if written < 0 { throw POSIXFileError(path: path, operation: "write", code: errno) }
                offset += written
            }
        }
        return path
    }
}
