import Foundation

/// write(2) to a descriptor until every byte is written.
enum POSIXWrite {
    /// Writes all of `bytes` to `descriptor`, retrying after EINTR; false on failure, with
    /// `errno` saying why (the caller turns it into its own error).
    static func all(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
