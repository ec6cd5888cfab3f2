import CCurl
import CShim
import Foundation

/// The per-transfer context libcurl's callbacks write into: the staging file,
/// the running SHA-256, the size limit and the first bytes for sniffing.
final class TransferState {
    let request: TransferRequest
    var attempts: Int
    let maxSize: Int64
    let staging: UploadStaging
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

    /// The URL the next request asks for: the request's, or where redirects led.
    private(set) var url: String
    /// Redirects followed before `url` (against the limit of `maxRedirects`).
    private(set) var redirectsBefore = 0
    /// Requests made for this URL, every attempt and redirect counted.
    private(set) var requestCount = 0
    /// Set once a redirect left the request's origin: from then on no credentials are sent.
    private(set) var leftOrigin = false
    /// Set when the request stopped reading a redirect's long page to follow it.
    private(set) var redirectToFollow: String?
    /// Why a redirect was not followed (too many, another scheme); the URL's failure.
    private(set) var redirectFailure: String?
    /// Redirects followed for one URL at the most, whoever follows them.
    static let maxRedirects = 10

    /// Counts a request about to be made.
    func countRequest() { requestCount += 1 }

    /// Takes `target` as the next request's URL when the hop budget and the scheme allow;
    /// false (and `redirectFailure` set) when they do not.
    func follow(to target: String) -> Bool {
        redirectToFollow = nil
        guard redirectsBefore < Self.maxRedirects else {
            redirectFailure = "too many redirects (more than \(Self.maxRedirects)); \(requestCount) requests made for this URL"
            return false
        }
        let scheme = target.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else {
            redirectFailure = "redirect to an unsupported scheme '\(scheme)' (only http and https are followed): "
                + URLValidator.withoutPassword(target)
            return false
        }
        if !leftOrigin, URLOrigin(target) != URLOrigin(request.item.url) { leftOrigin = true }
        url = target
        redirectsBefore += 1
        return true
    }

    /// A retry starts again from the listed URL: where a redirect led may have been temporary.
    func restartFromListedURL() {
        url = request.item.url
        redirectsBefore = 0
        leftOrigin = false
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

    /// Whether a body whose end cannot be proven is stored (with a warning) instead of failed.
    let storesUnprovenBodies: Bool

    init(request: TransferRequest, attempts: Int, maxSize: Int64, stallTimeout: Double, staging: UploadStaging,
         buffers: BufferPool, storesUnprovenBodies: Bool = false) {
        self.storesUnprovenBodies = storesUnprovenBodies
        self.buffers = buffers
        self.stallTimeout = stallTimeout
        self.request = request
        self.attempts = attempts
        self.maxSize = maxSize
        self.staging = staging
        url = request.item.url
    }

    /// Where a retry resumes a body cut short: the bytes kept, the validator the first
    /// response gave (for If-Range), and the whole body's length it announced.
    struct ResumePoint: Equatable {
        var offset: Int64
        var validator: String
        var total: Int64
    }

    /// Set while the staging file holds the first `offset` bytes of the body, kept for the
    /// next attempt to ask for the rest (Range + If-Range).
    private(set) var resume: ResumePoint?
    /// Set when the current attempt's body is the rest after `resume.offset` (a 206 that fits).
    private(set) var continuing = false
    /// Set when a 206 to our Range request did not fit the bytes kept (the partial is dropped).
    private(set) var badRange = false
    /// Bytes of an error or redirect page drained (not stored).
    private var drained: Int64 = 0

    /// Starts an attempt: forget any partial body, but one kept for resuming.
    func resetForAttempt() {
        if resume == nil {
            discardFile()
            bytes = 0
            prefix = []
        }
        continuing = false
        badRange = false
        drained = 0
        abortReason = nil
        stalled = false
        oversize = false
        decoder = nil
        wireBytes = 0
        stoppedAfterStreamEnd = false
        endTracker = nil
        wholeness = nil
        redirectToFollow = nil
        redirectFailure = nil
        discarding = false
        statusChecked = false
        writeError = nil
        heldByRate = false
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
            if let handle, let target = ResponseInfo.redirectTarget(handle, status: status) {
                redirectToFollow = target
            } else {
                abortReason = "HTTP \(status) with a page over \(ByteSize.format(Self.drainLimit)); not read to its end"
            }
            return false
        }
        let now = TransferEngine.now()
        if downloaded != lastByteCount || heldByRate {
            // Paused for --limit-rate is no stall.
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

    /// Whether a 206 answer to our Range request is the rest of the bytes kept: its
    /// Content-Range starts at the offset and has the first response's total, its length is
    /// that of the rest, it is not content-coded and carries no other ETag. Sets `abortReason` when not.
    private func rangeAnswerFits(_ handle: UnsafeMutableRawPointer) -> Bool {
        guard let resume else { return false }
        let range = ResponseInfo.header(handle, "Content-Range") ?? ""
        var declared: curl_off_t = -1
        _ = shim_curl_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared)
        let etag = ResponseInfo.header(handle, "ETag")
        let expected = "bytes \(resume.offset)-\(resume.total - 1)/\(resume.total)"
        let fits = Self.byteRange(range).map { $0 == (resume.offset, resume.total - 1, resume.total) } == true
            && (declared < 0 || Int64(declared) == resume.total - resume.offset)
            && ResponseInfo.header(handle, "Content-Encoding") == nil
            && (etag == nil || !resume.validator.hasPrefix("\"") || etag == resume.validator)
            && (resume.validator.hasPrefix("\"") || ResponseInfo.header(handle, "Last-Modified").map { $0 == resume.validator } != false)
        if !fits {
            let shown = range.isEmpty ? "no Content-Range" : "Content-Range '\(range.prefix(80))'"
            abortReason = "resumed download refused: HTTP 206 with \(shown), not '\(expected)' for the \(resume.offset) bytes kept; starting over"
        }
        return fits
    }

    /// (first, last, total) of a `bytes FIRST-LAST/TOTAL` Content-Range; nil for anything else.
    static func byteRange(_ value: String) -> (Int64, Int64, Int64)? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let halves = text.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, let total = Int64(halves[1]) else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]) else { return nil }
        return (first, last, total)
    }

    /// After an attempt that failed: whether the bytes received are kept for the next attempt
    /// to resume (then `resume` says from where). Only a plain (not content-coded) 200 or
    /// continuing 206 body with a length, from a server that announced `Accept-Ranges: bytes`
    /// and a validator (a strong ETag, else Last-Modified), is resumed.
    func keepForResume() -> Bool {
        guard let handle, writer != nil, writeError == nil, decoder == nil, !discarding, !oversize, !badRange, bytes > 0 else {
            return false
        }
        if continuing, let kept = resume {
            guard bytes < kept.total else { return false }
            resume = ResumePoint(offset: bytes, validator: kept.validator, total: kept.total)
            return true
        }
        // This attempt never reached a body: the same bytes are kept.
        if resume != nil && !statusChecked { return true }
        var status = 0
        var declared: curl_off_t = -1
        _ = shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        _ = shim_curl_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared)
        guard status == 200, ResponseFraming(handle).isFramedByLength, Int64(declared) > bytes,
              ResponseInfo.header(handle, "Content-Encoding") == nil,
              ResponseInfo.header(handle, "Accept-Ranges")?.lowercased().split(separator: ",")
                .contains(where: { $0.trimmingCharacters(in: .whitespaces) == "bytes" }) == true else { return false }
        let etag = ResponseInfo.header(handle, "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
        guard let validator = etag ?? ResponseInfo.header(handle, "Last-Modified"),
              FetchOptions.isHeaderValue(validator) else { return false }
        resume = ResumePoint(offset: bytes, validator: validator, total: Int64(declared))
        return true
    }

    /// Waits for the bytes kept for resuming to be written, the hash left open; false (and
    /// `writeError` set) when a write failed.
    func flushWrites() -> Bool {
        guard let writer else { return false }
        do {
            try writer.flush()
            return true
        } catch {
            if writeError == nil { writeError = error }
            return false
        }
    }

    /// Hands the staging file over (after success); the state no longer owns it.
    func takeFile() -> StagingFile? {
        defer { file = nil; writer = nil }
        return file
    }

    func discardFile() {
        resume = nil
        writer?.abandon()
        if let file { staging.discard(file) }
        file = nil
        writer = nil
    }

    /// --limit-rate's budget (shared by every transfer of the run), nil without a limit.
    var rateBudget: RateBudget?
    /// Set when the write callback paused the transfer for --limit-rate; the engine unpauses it.
    var heldByRate = false
    /// curl's CURL_WRITEFUNC_PAUSE.
    static let pauseWrites = 0x1000_0001

    /// Called by curl's write callback; returns the number of bytes consumed
    /// (anything else makes curl abort the transfer, but `pauseWrites`).
    func receive(_ data: UnsafeRawBufferPointer) -> Int {
        // Refused once (a limit, a write, data after the stream's end): refused for good, also
        // when libcurl goes on after a refusal it was handed while unpausing (--limit-rate).
        if abortReason != nil || writeError != nil || stoppedAfterStreamEnd { return 0 }
        if let rateBudget, !data.isEmpty {
            guard rateBudget.allows(now: TransferEngine.now()) else {
                heldByRate = true
                return Self.pauseWrites
            }
            rateBudget.spend(data.count)
        }
        if !statusChecked {
            statusChecked = true
            var status = 0
            shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            discarding = !(200..<300).contains(status)
            if !discarding, let handle, resume != nil {
                if status == 206 {
                    guard rangeAnswerFits(handle) else {
                        discardFile()
                        bytes = 0
                        prefix = []
                        badRange = true
                        return 0
                    }
                    continuing = true
                } else {
                    // The whole body again (the range ignored, or If-Range did not match): start over.
                    discardFile()
                    bytes = 0
                    prefix = []
                }
            }
            if !discarding, let handle {
                let framing = ResponseFraming(handle)
                guard declaredSizeFits(framing), !framing.isFramedByLength || lengthIsConsistent(framing), startDecoding() else {
                    return 0
                }
                if framing.isDelimitedByClose { endTracker = ImageEndTracker() }
            }
        }
        if discarding {
            drained += Int64(data.count)
            // Drain small error pages to keep the connection; abort big ones (a redirect's
            // is then followed all the same).
            guard drained > Self.drainLimit else { return data.count }
            if let handle, let status = ignoredBodyStatus(), let target = ResponseInfo.redirectTarget(handle, status: status) {
                redirectToFollow = target
            }
            return 0
        }
        guard let decoder else { return accept(data) ? data.count : 0 }
        // The compressed bytes count against --max-size too: a stream that decodes to
        // little or nothing (endless empty deflate blocks) must not run on for ever.
        wireBytes += Int64(data.count)
        if wireBytes > maxSize {
            abortReason = "\(decoder.coding) body exceeds --max-size (\(ByteSize.format(maxSize))) as sent, before decoding; the rest was not downloaded"
            oversize = true
            return 0
        }
        do {
            switch try decoder.decode(data, deliver: accept) {
            case .more: return data.count
            case .refused: return 0
            case .dataAfterEnd:
                // The compressed stream is whole; what follows it is not read.
                stoppedAfterStreamEnd = true
                return 0
            }
        } catch {
            abortReason = "corrupt \(decoder.coding) body: it does not decode"
            return 0
        }
    }

    /// Compressed bytes received for the current attempt (before decoding).
    private var wireBytes: Int64 = 0
    /// Set when the transfer was stopped on purpose after the end of a compressed stream,
    /// with bytes still following it: the body is complete.
    private(set) var stoppedAfterStreamEnd = false

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

    /// False (transfer aborted) when the response's Content-Length is not one number
    /// (RFC 9110 8.6): libcurl reads the leading digits of `12abc` and the first of
    /// `39773, 79546` or of two headers that disagree, and a body cut to it would pass for whole.
    private func lengthIsConsistent(_ framing: ResponseFraming) -> Bool {
        let shown = { (value: String) in value.count > 20 ? value.prefix(20) + "…" : value }
        if let invalid = framing.contentLengths.first(where: { ResponseFraming.lengthValues($0) == nil }) {
            abortReason = "invalid Content-Length '\(shown(invalid))' (not a number): the body's length cannot be known"
            return false
        }
        let lengths = Set(framing.contentLengths.flatMap { ResponseFraming.lengthValues($0) ?? [] })
        guard lengths.count > 1 else { return true }
        abortReason = "conflicting Content-Length values (\(lengths.sorted().map(shown).joined(separator: ", "))): the body's length cannot be known"
        return false
    }

    /// For a body delimited by the connection's close, which has nothing else to tell a
    /// cut-off image from a whole one: whether it reached the end its format declares
    /// (true), stopped before it (false), or cannot be told (nil: an image format without
    /// an end marker or a structure to follow). true for a body with a length or chunked
    /// framing, and for bytes that are no image (the archiver refuses those). Call once
    /// the writes are complete: TIFF-based files are judged from the written file.
    func closeDelimitedBodyIsWhole() -> Bool? {
        if let judged = wholeness { return judged }
        let judged = judgeWholeness()
        wholeness = .some(judged)
        return judged
    }

    /// `closeDelimitedBodyIsWhole`'s answer for this attempt, once judged.
    private var wholeness: Bool??

    private func judgeWholeness() -> Bool? {
        guard let endTracker else { return true }
        if let whole = endTracker.isComplete { return whole }
        guard let format = FormatSniffer.sniff(prefix) else { return true }
        if format.isTIFFBased, let file {
            switch TIFFExtent.judge(path: file.path, length: file.spill?.isSpilled == true ? bytes : nil) {
            case .whole: return true
            case .cut: return false
            case .unknown: return nil
            }
        }
        return nil
    }

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
                let file = try staging.makeStagingFile()
                self.file = file
                writer = BodyWriter(file: file, buffers: buffers)
            }
            try writer!.append(data)
        } catch {
            writeError = error
            return false
        }
        endTracker?.consume(data)
        if prefix.count < CompletedTransfer.headLength {
            prefix += data.prefix(CompletedTransfer.headLength - prefix.count)
        }
        bytes += Int64(data.count)
        return true
    }
}
