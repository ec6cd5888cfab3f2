import CShim
import Foundation

/// libvips, started once per process for batch work: each image runs on one
/// thread (we parallelise over images ourselves) and no operation cache is kept.
enum VipsRuntime {
    private static let errorLock = NSLock()

    private static let startFailure: String? = shim_vips_setup_batch(1).map { String(cString: $0) }

    static func start() throws {
        if let failure = startFailure { throw ThumbnailError.vipsUnavailable(failure) }
    }

    /// Returns heap memory freed by the last image to the system. With one
    /// malloc arena shared by every worker, the holes a 1024-pixel decode leaves
    /// otherwise stay resident: two sizes at -j 2 peaked at 95-104 MB without
    /// this and 89-91 MB with it, at no measurable CPU cost.
    static func releaseFreedMemory() {
        shim_release_free_memory()
    }

    /// Takes and clears libvips' error text. The buffer is process-global: under
    /// concurrency a message may come from another image, so callers always name
    /// their own file next to it.
    static func takeError() -> String {
        errorLock.lock()
        defer { errorLock.unlock() }
        guard let buffer = shim_vips_take_error() else { return "unknown libvips error" }
        defer { shim_free(buffer) }
        let lines = String(cString: buffer).split(separator: "\n").map(String.init)
        return lines.last ?? "unknown libvips error"
    }
}
