import Foundation

/// A file being downloaded into the store's staging area: all of the body for a local
/// store; for a remote one, the first `spill.headLimit` bytes, the rest streamed into
/// `spill`.
public struct StagingFile: Sendable, Hashable {
    public let path: String
    public let descriptor: Int32
    /// Where bytes past the head go, nil when the whole body stays in the file.
    public let spill: BodySpill?

    public init(path: String, descriptor: Int32, spill: BodySpill? = nil) {
        self.path = path
        self.descriptor = descriptor
        self.spill = spill
    }

    /// Sets the file's modification time (the original's file time: `CaptureDate.fileTime`);
    /// the access time is left as it is.
    func setModified(_ time: time_t) {
        Self.setModified(descriptor, time)
    }

    /// Sets the modification time of the open file `descriptor`, leaving its access time.
    static func setModified(_ descriptor: Int32, _ time: time_t) {
        // (1 << 30) - 2 is UTIME_OMIT.
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: time, tv_nsec: 0)]
        futimens(descriptor, &times)
    }

    public static func == (lhs: StagingFile, rhs: StagingFile) -> Bool {
        lhs.path == rhs.path && lhs.descriptor == rhs.descriptor
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(descriptor)
    }
}
