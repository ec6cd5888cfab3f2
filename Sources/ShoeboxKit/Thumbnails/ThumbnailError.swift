import Foundation

/// Why a thumbnail could not be made; each message names the file and what to do.
public enum ThumbnailError: Error, Equatable, CustomStringConvertible {
    case invalidSize(String)
    case vipsUnavailable(String)
    case originalMissing(String)
    case unreadable(path: String, reason: String)
    case tooManyPixels(path: String, width: Int, height: Int, limit: Int)
    /// Decoding would take more than the whole --max-memory budget; not attempted.
    case overMemoryBudget(path: String, width: Int, height: Int, estimate: Int64, budget: Int64, reason: String)
    case decodeFailed(path: String, reason: String)
    case saveFailed(path: String, reason: String)
    /// Encoding `thumbnail` failed; the pipeline is lazy, so the cause may be
    /// the original's pixel data as well as the disk.
    case renderFailed(original: String, thumbnail: String, reason: String)
    case outsideOriginals(String)
    /// The file system holding the thumbnails is full: the run stops.
    case diskFull(path: String)
    /// A file or folder under thumbnails/ other than a thumbnail (CACHEDIR.TAG, a size
    /// folder) cannot be written or removed; `reason` is the system's.
    case cannotWrite(path: String, reason: String)
    /// The original's bytes are not the archived ones (bit rot, an edit).
    case originalChanged(path: String, detail: String)

    public var description: String {
        if let (path, reason) = threadRefusal {
            return "\(path): libvips could not start a thread (\(reason)); the system limits processes or threads: "
                + "rerun with fewer --jobs or raise the limit"
        }
        switch self {
        case .invalidSize(let spec):
            return "invalid size '\(spec)': expected N (longer side) or WxH (box), each from 1 to \(ThumbnailSize.maximumSide)"
        case .vipsUnavailable(let reason):
            return "libvips could not start: \(reason); check the libvips installation"
        case .originalMissing(let path):
            return "\(path): original is missing from the library; run 'shoebox verify'"
        case .unreadable(let path, let reason):
            return "\(path): not a readable image (\(reason)); it was skipped"
        case .tooManyPixels(let path, let width, let height, let limit):
            return "\(path): \(width)x\(height) is \(width * height) pixels, over the limit of \(limit); "
                + "raise --max-pixels if the image is trusted"
        case .overMemoryBudget(let path, let width, let height, let estimate, let budget, let reason):
            return "\(path): decoding this \(width)x\(height) image needs about \(ByteSize.format(estimate)) (\(reason)), "
                + "over the --max-memory budget of \(ByteSize.format(budget)); it was not attempted: "
                + "raise --max-memory if the image is trusted and the memory is there"
        case .decodeFailed(let path, let reason):
            return "\(path): cannot decode (\(reason)); the file may be corrupt or truncated"
        case .saveFailed(let path, let reason):
            return "\(path): cannot write thumbnail (\(reason)); check free space and permissions"
        case .renderFailed(let original, let thumbnail, let reason):
            return "\(original): cannot make \(thumbnail) (\(reason)); "
                + "the original may be corrupt or truncated, or the disk full or read-only"
        case .diskFull(let path):
            return "no space left on device writing \(path); the run stopped: free some space and run 'shoebox thumbs' "
                + "again, it goes on where this one stopped"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path) (\(reason)); check that the library's thumbnails/ folder is writable"
        case .outsideOriginals(let path):
            return "\(path): not under originals/; only originals get thumbnails"
        case .originalChanged(let path, let detail):
            return "\(path): not the archived original any more (\(detail)); its thumbnails are left as they are: "
                + "'shoebox verify' reports it, restore it from a backup"
        }
    }

    /// Whether the run must stop: nothing more can be written.
    public var isDiskFull: Bool {
        if case .diskFull = self { return true }
        return false
    }

    /// The error for a failed write of `path` under thumbnails/.
    static func writing(_ error: POSIXFileError) -> ThumbnailError {
        error.isDiskFull ? .diskFull(path: error.path) : .cannotWrite(path: error.path, reason: String(cString: strerror(error.code)))
    }

    /// The file and libvips' message when the failure was a thread the system refused
    /// (a pids or process limit), which is no fault of the file or the disk.
    private var threadRefusal: (String, String)? {
        switch self {
        case .unreadable(let path, let reason), .decodeFailed(let path, let reason), .saveFailed(let path, let reason),
             .renderFailed(let path, _, let reason):
            return reason.contains("Error creating thread") ? (path, reason) : nil
        default:
            return nil
        }
    }
}
