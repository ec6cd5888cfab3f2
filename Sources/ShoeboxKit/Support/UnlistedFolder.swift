import Foundation

/// A folder that could not be listed or entered, so files in it went unseen.
public struct UnlistedFolder: Sendable, Equatable, Codable {
    /// As the caller names folders: relative to the library root for verify and reindex,
    /// as given on the command line for inspect.
    public var path: String
    /// Why, as `strerror` says it.
    public var reason: String
    /// What to do about it: permissions can be fixed, an I/O error points at the disk.
    public var advice: String

    init(path: String, code: Int32) {
        self.path = path
        reason = String(cString: strerror(code))
        switch code {
        case EACCES, EPERM: advice = "fix its permissions"
        case EIO: advice = "check the disk (dmesg, fsck)"
        default: advice = "check the folder"
        }
    }
}
