import CCurl
import CShim
import Foundation

/// The per-transfer context libcurl's callbacks write into: the staging file,
/// the running SHA-256, the size limit and the first bytes for sniffing.
final class TransferState {
    let request: TransferRequest
    var attempts: Int
    let maxSize: Int64
    let store: OriginalStore

    private(set) var file: StagingFile?
    /// True when the body was drained because the status was not 2xx.
    var discardedErrorBody: Bool { discarding }
    /// SHA-256 runs on its own queue, beside the network thread: on big bodies
    /// the hash and the transfer then use both cores.
    private var hasher = SHA256Hasher()
    private let hashQueue = DispatchQueue(label: "shoebox.transfer.hash")
    private(set) var bytes: Int64 = 0
    private var writebackOffset: Int64 = 0
    private(set) var prefix: [UInt8] = []
    /// Set when the callback aborted the body on purpose.
    var abortReason: String?
    /// Set when the first body byte arrived with a non-2xx status: the body is drained, not stored.
    private var discarding = false
    private var statusChecked = false
    var writeError: Error?
    /// Monotonic time of the last body byte (or of the attempt's start).
    private var lastActivity = 0.0
    private var lastByteCount: Int64 = -1
    let stallTimeout: Double

    /// The easy handle running the current attempt.
    var handle: UnsafeMutableRawPointer?
    /// curl's detailed error text for the current attempt.
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    deinit {
        errorBuffer.deallocate()
    }

    var errorDetail: String {
        let text = String(cString: errorBuffer)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    init(request: TransferRequest, attempts: Int, maxSize: Int64, stallTimeout: Double, store: OriginalStore) {
        self.stallTimeout = stallTimeout
        self.request = request
        self.attempts = attempts
        self.maxSize = maxSize
        self.store = store
    }

    /// Starts a fresh attempt: forget any partial body.
    func resetForAttempt() {
        discardFile()
        hasher = SHA256Hasher()
        bytes = 0
        writebackOffset = 0
        prefix = []
        abortReason = nil
        stalled = false
        discarding = false
        statusChecked = false
        writeError = nil
        errorBuffer[0] = 0
        lastActivity = TransferEngine.now()
        lastByteCount = -1
    }

    /// Called by curl's progress callback (about once a second, and on every read):
    /// false when nothing arrived for `stallTimeout` seconds, which aborts the transfer.
    func checkProgress(downloaded: Int64) -> Bool {
        let now = TransferEngine.now()
        if downloaded != lastByteCount {
            lastByteCount = downloaded
            lastActivity = now
            return true
        }
        if now - lastActivity >= stallTimeout {
            abortReason = "stalled: nothing received for \(Self.seconds(stallTimeout))"
            stalled = true
            return false
        }
        return true
    }

    /// Whether the current attempt was aborted for stalling (retryable).
    private(set) var stalled = false

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Small bodies are hashed inline (a copy and a queue hop would cost more);
    /// past the first MiB, chunks are hashed in order on the hash queue.
    private func hash(_ data: UnsafeRawBufferPointer) {
        guard bytes >= 1 << 20 else {
            hasher.update(data)
            return
        }
        let chunk = Data(data)
        let hasher = self.hasher
        hashQueue.async { hasher.update(chunk) }
    }

    /// The SHA-256 of the body received, once every chunk is hashed.
    func digest() -> String {
        let hasher = self.hasher
        return hashQueue.sync { hasher.finalizeHex() }
    }

    /// Hands the staging file over (after success); the state no longer owns it.
    func takeFile() -> StagingFile? {
        defer { file = nil }
        return file
    }

    func discardFile() {
        if let file { store.discard(file) }
        file = nil
    }

    /// Called by curl's write callback; returns the number of bytes consumed
    /// (anything else makes curl abort the transfer).
    func receive(_ data: UnsafeRawBufferPointer) -> Int {
        if !statusChecked {
            statusChecked = true
            var status = 0
            shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            discarding = !(200..<300).contains(status)
        }
        if discarding {
            bytes += Int64(data.count)
            // Drain small error pages to keep the connection; abort big ones.
            return bytes > 1 << 20 ? 0 : data.count
        }
        if bytes + Int64(data.count) > maxSize {
            abortReason = "body exceeds --max-size (\(ByteSize.format(maxSize)))"
            return 0
        }
        do {
            if file == nil { file = try store.makeStagingFile() }
            try writeAll(data, to: file!)
        } catch {
            writeError = error
            return 0
        }
        if prefix.count < FormatSniffer.prefixLength {
            prefix += data.prefix(FormatSniffer.prefixLength - prefix.count)
        }
        hash(data)
        bytes += Int64(data.count)
        startWritebackIfDue()
        return data.count
    }

    /// Asks the kernel to start writing each 4 MiB to disk as it arrives, so the
    /// batch's single sync later finds little left to do (overlaps disk and network).
    private func startWritebackIfDue() {
        let chunk: Int64 = 4 << 20
        guard let file, bytes - writebackOffset >= chunk else { return }
        shim_start_writeback(file.descriptor, writebackOffset, bytes - writebackOffset)
        writebackOffset = bytes
    }

    private func writeAll(_ data: UnsafeRawBufferPointer, to file: StagingFile) throws {
        var offset = 0
        while offset < data.count {
            let written = write(file.descriptor, data.baseAddress! + offset, data.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == ENOSPC || errno == EDQUOT { throw LibraryError.diskFull(path: file.path) }
                throw POSIXFileError(path: file.path, operation: "write", code: errno)
            }
            offset += written
        }
    }
}
