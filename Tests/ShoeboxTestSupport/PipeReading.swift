import Foundation

/// Reading a child process's pipes without the traps of FileHandle's conveniences.
public enum PipeReading {
    /// Everything until the end (empty on an error).
    public static func readAll(_ handle: FileHandle) -> Data {
        (try? handle.readToEnd()) ?? Data()
    }

    /// What one read(2) of `handle` returns: the bytes available, empty at the end or on an
    /// error (FileHandle's `availableData` traps on one; its `read(upToCount:)` waits for all).
    public static func readSome(_ handle: FileHandle) -> Data {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(handle.fileDescriptor, &buffer, buffer.count)
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { return Data() }
        }
    }
}
