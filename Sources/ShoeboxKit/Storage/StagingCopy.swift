import Foundation

/// Copies an open local file into a new staging file of `store`, hashing as it goes:
/// how a local photo (`import`, a `file://` source in `verify --repair`) enters the same
/// staging, checks and publish as a download. The whole body stays in the staging file.
struct StagingCopy {
    let file: StagingFile
    let sha256: String
    let bytes: Int64
    /// The first bytes, for the format sniffer (as the transfer engine keeps them).
    let prefix: [UInt8]

    static let prefixLength = 64

    /// Why a copy failed: the source could not be read (`source`), or the library could not
    /// be written (`library`: a full disk stops the run).
    enum Failure: Error {
        case source(reason: String)
        case library(Error)
    }

    static func copy(from input: Int32, into store: OriginalStore, library: String) throws(Failure) -> StagingCopy {
        let file: StagingFile
        do { file = try store.makeStagingFile() } catch { throw .library(error) }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var copied: Int64 = 0
        var prefix: [UInt8] = []
        while true {
            let got = read(input, buffer.baseAddress!, buffer.count)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else {
                let reason = String(cString: strerror(errno))
                store.discard(file)
                throw .source(reason: reason)
            }
            if got == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<got])
            if prefix.count < prefixLength { prefix += chunk.prefix(prefixLength - prefix.count) }
            hasher.update(chunk)
            guard POSIXWrite.all(chunk, to: file.descriptor) else {
                let code = errno
                store.discard(file)
                if code == ENOSPC || code == EDQUOT { throw .library(LibraryError.diskFull(path: library)) }
                throw .library(POSIXFileError(path: file.path, operation: "write", code: code))
            }
            copied += Int64(got)
        }
        return StagingCopy(file: file, sha256: hasher.finalizeHex(), bytes: copied, prefix: prefix)
    }
}
