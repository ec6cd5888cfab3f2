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
    let buffers: BufferPool

    private(set) var file: StagingFile?
    /// Writes and hashes the body into `file`.
    private var writer: BodyWriter?
    /// Decodes a body sent with a Content-Encoding (nil for plain bodies).
    private var decoder: ContentDecoder?
    /// Follows the image's structure when nothing else tells where the body ends.
    private var endTracker: ImageEndTracker?
    /// True when the body was drained because the status was not 2xx.
    var discardedErrorBody: Bool { discarding }
    private(set) var bytes: Int64 = 0
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

    /// The URL the next attempt asks for: the request's, or where a redirect left off.
    private(set) var url: String
    /// Redirects followed before `url` (against the limit of 10).
    private(set) var redirectsBefore = 0
    /// Set when the attempt stopped reading a redirect's long page to follow it.
    private(set) var redirectToFollow: (url: String, followed: Int)?

    /// Carries on at the redirect's target, on a new connection.
    func followRedirect() {
        guard let target = redirectToFollow else { return }
        url = target.url
        redirectsBefore += target.followed + 1
    }

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

    init(request: TransferRequest, attempts: Int, maxSize: Int64, stallTimeout: Double, store: OriginalStore,
         buffers: BufferPool) {
        self.buffers = buffers
        self.stallTimeout = stallTimeout
        self.request = request
        self.attempts = attempts
        self.maxSize = maxSize
        self.store = store
        url = request.item.url
    }

    /// Starts a fresh attempt: forget any partial body.
    func resetForAttempt() {
        discardFile()
        bytes = 0
        prefix = []
        abortReason = nil
        stalled = false
        oversize = false
        decoder = nil
        endTracker = nil
        redirectToFollow = nil
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
        if !statusChecked && downloaded > Self.drainLimit, let status = ignoredBodyStatus() {
            // A redirect's long page: libcurl would read it all before following; the
            // engine follows it on a new connection instead.
            if let handle, (300..<400).contains(status), let target = ResponseInfo.redirect(handle) {
                redirectToFollow = target
            } else {
                abortReason = "HTTP \(status) with a page over \(ByteSize.format(Self.drainLimit)); not read to its end"
            }
            return false
        }
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

    /// The status of a response whose body libcurl reads without handing it over (a
    /// redirect's page, read to its end to keep the connection); nil for any other.
    private func ignoredBodyStatus() -> Int? {
        var status = 0
        guard let handle, shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK,
              !(200..<300).contains(status) else { return nil }
        return status
    }

    /// Whether the current attempt was aborted for stalling (retryable).
    private(set) var stalled = false
    /// Whether the current attempt was aborted for growing past --max-size (refused).
    private(set) var oversize = false

    /// The content coding of a body whose compressed stream stopped before its end
    /// (cut short, though the transfer itself ended normally); nil otherwise.
    var unfinishedCoding: String? {
        guard let decoder, !decoder.isComplete else { return nil }
        return decoder.coding
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Whether the body still has writes queued (see BodyWriter).
    var hasQueuedWrites: Bool { writer?.hasQueuedWrites ?? false }

    func whenWritten(_ done: @escaping @Sendable () -> Void) {
        guard let writer else { return done() }
        writer.whenWritten(done)
    }

    /// Waits for the body's last writes; returns its SHA-256, or nil (and sets
    /// `writeError`) when a write failed. Call once the transfer has ended.
    func completeWrites() -> String? {
        guard let writer else { return nil }
        do {
            return try writer.finish()
        } catch {
            if writeError == nil { writeError = error }
            return nil
        }
    }

    /// Hands the staging file over (after success); the state no longer owns it.
    func takeFile() -> StagingFile? {
        defer { file = nil; writer = nil }
        return file
    }

    func discardFile() {
        writer?.abandon()
        if let file { store.discard(file) }
        file = nil
        writer = nil
    }

    /// Called by curl's write callback; returns the number of bytes consumed
    /// (anything else makes curl abort the transfer).
    func receive(_ data: UnsafeRawBufferPointer) -> Int {
        if !statusChecked {
            statusChecked = true
            var status = 0
            shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            discarding = !(200..<300).contains(status)
            if !discarding, let handle {
                let framing = ResponseFraming(handle)
                guard declaredSizeFits(framing), !framing.isFramedByLength || lengthIsConsistent(framing), startDecoding() else {
                    return 0
                }
                if framing.isDelimitedByClose { endTracker = ImageEndTracker() }
            }
        }
        if discarding {
            bytes += Int64(data.count)
            // Drain small error pages to keep the connection; abort big ones.
            return bytes > Self.drainLimit ? 0 : data.count
        }
        guard let decoder else { return accept(data) ? data.count : 0 }
        do {
            return try decoder.decode(data, deliver: accept) ? data.count : 0
        } catch {
            abortReason = "corrupt \(decoder.coding) body: it does not decode"
            return 0
        }
    }

    /// The most of a body that is not stored (an error page, a redirect's page) read
    /// before the connection is given up instead.
    static let drainLimit: Int64 = 1 << 20

    /// False (transfer refused) when the 2xx body's Content-Length is over --max-size.
    private func declaredSizeFits(_ framing: ResponseFraming) -> Bool {
        guard let handle else { return true }
        var declared: curl_off_t = -1
        _ = shim_curl_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared)
        // A length of more digits than libcurl can hold is dropped by it, as if none was sent.
        let tooLongToHold = framing.isFramedByLength && declared < 0 && framing.contentLengths.first
            .map { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } } == true
        guard Int64(declared) > maxSize || tooLongToHold else { return true }
        abortReason = "Content-Length exceeds --max-size (\(ByteSize.format(maxSize))); not downloaded"
        oversize = true
        return false
    }

    /// False (transfer aborted) when the response has Content-Length headers that disagree:
    /// libcurl believes one of them, and a body cut to it would pass for whole.
    private func lengthIsConsistent(_ framing: ResponseFraming) -> Bool {
        let lengths = Set(framing.contentLengths)
        guard lengths.count > 1 else { return true }
        let shown = lengths.sorted().map { $0.count > 20 ? $0.prefix(20) + "…" : $0 }
        abortReason = "conflicting Content-Length headers (\(shown.joined(separator: ", "))): the body's length cannot be known"
        return false
    }

    /// Whether a body delimited by the connection's close stopped before the end its
    /// image format declares (the connection was cut); false when it did not, or when
    /// the body had a length to check against or a format that is not judged.
    var endsBeforeImageEnd: Bool { endTracker?.isComplete == false }

    /// Sets up decoding for a Content-Encoding; false (transfer aborted) for one it cannot decode.
    private func startDecoding() -> Bool {
        guard let handle, let coding = ResponseInfo.header(handle, "Content-Encoding") else { return true }
        do {
            decoder = try ContentDecoder(contentEncoding: coding)
            return true
        } catch {
            abortReason = "unsupported Content-Encoding '\(coding)': only gzip, deflate and br are decoded"
            return false
        }
    }

    /// Stores decoded body bytes; false aborts the transfer (over --max-size, write failed).
    private func accept(_ data: UnsafeRawBufferPointer) -> Bool {
        if bytes + Int64(data.count) > maxSize {
            abortReason = "body exceeds --max-size (\(ByteSize.format(maxSize))); the rest was not downloaded"
            oversize = true
            return false
        }
        do {
            if writer == nil {
                let file = try store.makeStagingFile()
                self.file = file
                writer = BodyWriter(file: file, buffers: buffers)
            }
            try writer!.append(data)
        } catch {
            writeError = error
            return false
        }
        endTracker?.consume(data)
        if prefix.count < FormatSniffer.prefixLength {
            prefix += data.prefix(FormatSniffer.prefixLength - prefix.count)
        }
        bytes += Int64(data.count)
        return true
    }
}
