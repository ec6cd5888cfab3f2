import Foundation

/// A failed system call on a named file, with the system's reason.
public struct POSIXFileError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let operation: String
    public let code: Int32

    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    public var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}
