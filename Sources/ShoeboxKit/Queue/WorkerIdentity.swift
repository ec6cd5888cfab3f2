import Foundation

/// One worker process on one machine, as the queue knows it: a unique id (a new one per run,
/// so a restarted process never inherits a dead one's claims by accident), and the host name
/// and process id shown by `status`.
///
/// One per process is the intended use: its threads may share it, each on its own queue
/// connection (their claims then wait for each other briefly on the worker's row, which each
/// claim updates as a heartbeat), and `release` lets go of everything the process holds.
public struct WorkerIdentity: Sendable, Hashable, CustomStringConvertible {
    public let id: String
    public let host: String
    public let pid: Int

    public init(id: String, host: String, pid: Int) {
        self.id = id
        self.host = host
        self.pid = pid
    }

    /// This process: id `HOST-PID-XXXXXXXX` (8 random hex digits).
    public static func current() -> WorkerIdentity {
        let host = hostName()
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        let suffix = String(repeating: "0", count: 8 - random.count) + random
        return WorkerIdentity(id: "\(host)-\(pid)-\(suffix)", host: host, pid: pid)
    }

    /// gethostname(2): ProcessInfo.hostName may ask the resolver for a canonical name.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown-host" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return bytes.isEmpty ? "unknown-host" : String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { id }
}
