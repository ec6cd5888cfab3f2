import CCurl
import CShim
import Foundation

/// Runs HTTP transfers through one libcurl multi handle: up to `jobs` at once,
/// `perHost` per host, connections reused, retries scheduled with backoff.
/// Everything here runs on the thread that calls `run`; `cancel` may be called from any thread.
public final class TransferEngine: @unchecked Sendable {
    private let options: FetchOptions
    /// Where bodies are written: all the engine knows of storage.
    private let staging: UploadStaging
    private let policy: RetryPolicy
    private let multi: UnsafeMutableRawPointer
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private var active: [UnsafeMutableRawPointer: TransferState] = [:]
    private var retryQueue: [(due: Double, state: TransferState)] = []
    /// Transfers whose network part ended while their last writes were queued:
    /// they are finished once written, so the network thread never waits for the disk.
    private var writing: [UnsafeMutableRawPointer: (state: TransferState, code: CURLcode)] = [:]
    private let writtenLock = NSLock()
    private var written: [UInt] = []
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    private let cancelFlag = ManagedAtomicFlag()
    /// Body buffers: one per running transfer while it fills, plus room for the
    /// ones being written (see BodyWriter).
    private let buffers: BufferPool
    /// A failure that stops the whole run (disk full), when one happened.
    public private(set) var stopError: Error?
    /// One cookie store for every handle (--cookies, --cookie-jar); nil without cookies.
    /// Used from the engine's thread alone, so it has no lock callbacks.
    private var share: UnsafeMutableRawPointer?
    /// Whether the cookie file still has to be read (by the next handle configured).
    private var cookieFilePending = false
    /// Requests held back by --wait-between until their host's turn, and when each host's
    /// next request may start.
    private var delayed: [(due: Double, state: TransferState)] = []
    private var nextStart: [String: Double] = [:]
    /// --limit-rate's budget for the whole run; nil without a limit.
    private let rateBudget: RateBudget?

    /// Throws `FetchRunError.invalidOption` when the memory for `options.jobs`
    /// transfers' buffers is refused.
    public init(options: FetchOptions, staging: UploadStaging) throws {
        self.options = options
        self.staging = staging
        policy = RetryPolicy(maxRetries: options.retries, baseDelay: options.retryBaseDelay, maxWait: options.maxRetryWait)
        do {
            buffers = try BufferPool(size: Self.bufferSize(jobs: options.jobs), limit: options.jobs + 16)
        } catch let error as BufferPool.ReservationFailed {
            throw FetchRunError.invalidOption(
                "--jobs \(options.jobs) needs \(ByteSize.format(Int64(error.bytes))) for transfer buffers, and the system "
                + "refused it (\(error.reason)); use fewer --jobs or raise the memory limit (ulimit -v)")
        }
        rateBudget = options.limitRate > 0 ? RateBudget(bytesPerSecond: options.limitRate, now: Self.now()) : nil
        multi = curl_multi_init()!
        shim_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, options.perHost)
        shim_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, options.jobs)
        shim_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        headerList = Self.slist(options.headers)
        resolveList = Self.slist(options.resolve)
        if options.cookieFile != nil || options.cookieJar != nil {
            share = curl_share_init()
            shim_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
            cookieFilePending = options.cookieFile != nil
        }
    }

    /// A curl string list (nil when empty); the caller frees it with curl_slist_free_all.
    private static func slist(_ items: [String]) -> UnsafeMutablePointer<curl_slist>? {
        items.reduce(nil) { curl_slist_append($0, $1) }
    }

    deinit {
        for handle in idleHandles + Array(active.keys) { curl_easy_cleanup(handle) }
        for list in conditionalHeaders.values { curl_slist_free_all(list) }
        curl_multi_cleanup(multi)
        if let share { curl_share_cleanup(share) }
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
    }

    /// 512 KiB per body buffer, smaller with many transfers at once so that all
    /// of them (jobs + 16) stay within about 64 MiB: 16 MiB at the default -j 16,
    /// 64 KiB buffers at -j 1000. The pool reserves twice that in address space
    /// (not memory): room for them all among bodies' first buffers, and again among the rest.
    static func bufferSize(jobs: Int) -> Int {
        let share = (64 << 20) / (jobs + 16) / BufferPool.alignment * BufferPool.alignment
        return min(512 << 10, max(64 << 10, share))
    }

    /// Stops starting transfers and aborts running ones; `run` returns soon after.
    public func cancel() {
        cancelFlag.set()
        curl_multi_wakeup(multi)
    }

    public var isCancelled: Bool { cancelFlag.isSet }

    /// Ends a wait in `run` early (more input arrived); callable from any thread.
    public func wakeUp() {
        curl_multi_wakeup(multi)
    }

    /// What the engine's input has next.
    public enum Next {
        case request(TransferRequest)
        /// Nothing yet: the engine carries on with its transfers until `wakeUp`.
        case waiting
        case end
    }

    /// Pulls requests from `next` until it says `.end`, and reports each transfer's end to `completion`.
    /// Returns when everything has finished or the engine was cancelled (then the running
    /// transfers are aborted and their partial files removed, without reporting them).
    public func run(next: () -> Next, completion: (CompletedTransfer) -> Void) {
        var inputDone = false
        while !isCancelled {
            startDueRetries()
            var inputWaiting = false
            startDueDelayed()
            while !inputDone && !inputWaiting && active.count < options.jobs && delayed.count < options.jobs && !isCancelled {
                switch next() {
                case .request(let request):
                    start(TransferState(
                        request: request, attempts: 1, maxSize: options.maxSize, stallTimeout: options.stallTimeout,
                        staging: staging, buffers: buffers, storesUnprovenBodies: options.allowUnprovenEnd))
                case .waiting: inputWaiting = true
                case .end: inputDone = true
                }
            }
            if inputDone && active.isEmpty && retryQueue.isEmpty && writing.isEmpty && delayed.isEmpty { break }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            resumeRateHeld()
            collectFinished(completion)
            collectWritten(completion)
            let canStartMore = !inputDone && !inputWaiting && active.count < options.jobs && delayed.count < options.jobs
            if !canStartMore && (inputWaiting || !active.isEmpty || !retryQueue.isEmpty || !writing.isEmpty || !delayed.isEmpty) {
                var ready: Int32 = 0
                curl_multi_poll(multi, nil, 0, pollTimeoutMilliseconds(), &ready)
            }
        }
        if isCancelled {
            finishWritten(completion)
            abortAll()
        }
        writeCookieJar()
    }

    /// Writes every cookie of the shared store to --cookie-jar (libcurl's Netscape format).
    private func writeCookieJar() {
        guard let share, let jar = options.cookieJar, let handle = curl_easy_init() else { return }
        // Cookies are secrets: a new jar is made readable by its owner alone (libcurl keeps
        // the mode of a file that exists, and would make a new one 0666 less the umask).
        let fd = open(jar, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd >= 0 { close(fd) }
        shim_curl_setopt_pointer(handle, CURLOPT_SHARE, share)
        shim_curl_setopt_string(handle, CURLOPT_COOKIEJAR, jar)
        shim_curl_setopt_string(handle, CURLOPT_COOKIELIST, "FLUSH")
        curl_easy_cleanup(handle)
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        var dues = retryQueue.map(\.due) + delayed.map(\.due)
        if let rateBudget, active.values.contains(where: \.heldByRate) {
            dues.append(Self.now() + rateBudget.secondsUntilAvailable(now: Self.now()))
        }
        guard let due = dues.min() else { return 1000 }
        let wait = max(0, due - Self.now()) * 1000
        return Int32(min(1000, wait.rounded(.up)))
    }

    private func startDueRetries() {
        let now = Self.now()
        while active.count < options.jobs, let index = retryQueue.firstIndex(where: { $0.due <= now }) {
            let state = retryQueue.remove(at: index).state
            start(state)
        }
    }

    /// Starts the request now, or (--wait-between) queues it for its host's next turn.
    private func start(_ state: TransferState) {
        if options.waitBetween > 0 {
            let host = URLOrigin(state.url)?.host ?? state.url
            let now = Self.now()
            let slot = max(now, nextStart[host] ?? 0)
            nextStart[host] = slot + options.waitBetween
            if slot > now {
                delayed.append((slot, state))
                return
            }
        }
        launch(state)
    }

    /// Starts the requests whose host's turn has come (--wait-between).
    private func startDueDelayed() {
        guard !delayed.isEmpty else { return }
        let now = Self.now()
        while let index = delayed.firstIndex(where: { $0.due <= now }) {
            launch(delayed.remove(at: index).state)
        }
    }

    private func launch(_ state: TransferState) {
        state.resetForAttempt()
        state.countRequest()
        let handle = idleHandles.popLast() ?? curl_easy_init()!
        state.handle = handle
        configure(handle, for: state)
        active[handle] = state
        curl_multi_add_handle(multi, handle)
    }

    /// --limit-rate: unpauses the transfers the budget held back, once it has bytes again
    /// (each in turn: one that is paused again waits for the next fill).
    private func resumeRateHeld() {
        guard let rateBudget else { return }
        for (handle, state) in active where state.heldByRate {
            guard rateBudget.allows(now: Self.now()) else { return }
            state.heldByRate = false
            // libcurl hands the held bytes to the write callback inside this call; a refusal
            // there comes back here only and libcurl goes on: the state keeps the reason, its
            // write callback refuses every later byte, and the verdict fails the transfer.
            let code = curl_easy_pause(handle, CURLPAUSE_CONT)
            if code != CURLE_OK && state.abortReason == nil && !state.stoppedAfterStreamEnd {
                state.abortReason = "transfer failed when resumed after --limit-rate: " + String(cString: curl_easy_strerror(code))
            }

        }
    }

    private func configure(_ handle: UnsafeMutableRawPointer, for state: TransferState) {
        curl_easy_reset(handle)
        let long = { (option: CURLoption, value: Int) in _ = shim_curl_setopt_long(handle, option, value) }
        let string = { (option: CURLoption, value: String) in _ = shim_curl_setopt_string(handle, option, value) }
        string(CURLOPT_URL, state.url)
        string(CURLOPT_PROTOCOLS_STR, "http,https")
        string(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // Redirects are followed by the engine (see `finish`), not by libcurl: one hop
        // budget whatever the page's size, and credentials kept from other origins.
        long(CURLOPT_FOLLOWLOCATION, 0)
        long(CURLOPT_NOSIGNAL, 1)
        long(CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000))
        if options.speedLimit > 0 {
            long(CURLOPT_LOW_SPEED_LIMIT, options.speedLimit)
            long(CURLOPT_LOW_SPEED_TIME, Int(options.speedTime.rounded(.up)))
        }
        if options.maxTime > 0 { long(CURLOPT_TIMEOUT_MS, Int(options.maxTime * 1000)) }
        long(CURLOPT_NOPROGRESS, 0)
        // A smaller buffer under --limit-rate: each write callback's chunk overdraws the budget less.
        long(CURLOPT_BUFFERSIZE, options.limitRate > 0 ? Int(min(256 * 1024, max(16 * 1024, options.limitRate / 8))) : 256 * 1024)
        long(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Waiting to multiplex pays only where HTTP/2 can be agreed (TLS): over plain
        // HTTP/1.1 it holds every other transfer to the host until the first one ends.
        if state.url.prefix(6).lowercased() == "https:" {
            long(CURLOPT_PIPEWAIT, 1)
        }
        // No Accept-Encoding (images gain nothing from gzip), and a body a server compresses
        // anyway reaches TransferState undecoded: it decodes it and checks the stream's end.
        long(CURLOPT_HTTP_CONTENT_DECODING, 0)
        string(CURLOPT_USERAGENT, options.userAgent)
        if let caCertificates = options.caCertificates { string(CURLOPT_CAINFO, caCertificates) }
        if let resolveList { shim_curl_setopt_slist(handle, CURLOPT_RESOLVE, resolveList) }
        if let share {
            shim_curl_setopt_pointer(handle, CURLOPT_SHARE, share)
            // The file is read once, into the shared store; "" turns the cookie engine on.
            string(CURLOPT_COOKIEFILE, cookieFilePending ? options.cookieFile ?? "" : "")
            cookieFilePending = false
        }
        // netrc matches host names only, whatever the port or scheme: after a redirect to
        // another origin, its credentials are not looked up.
        if options.netrc && !state.leftOrigin {
            long(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            if let netrcFile = options.netrcFile { string(CURLOPT_NETRC_FILE, netrcFile) }
        }
        state.rateBudget = rateBudget
        // No CURLOPT_MAXFILESIZE: libcurl applies it to every response, so a redirect or
        // a 503 with a long page would be refused instead of followed or retried.
        // TransferState checks the size of the final 2xx body only.
        var extra: [String] = []
        if let resume = state.resume {
            // The rest of a body cut short, if it is still the same (else the whole body).
            string(CURLOPT_RANGE, "\(resume.offset)-")
            extra.append("If-Range: \(resume.validator)")
        } else if let etag = state.request.etag {
            extra.append("If-None-Match: \(etag)")
        } else if let lastModified = state.request.lastModified {
            extra.append("If-Modified-Since: \(lastModified)")
        }
        if state.leftOrigin {
            // A redirect to another scheme, host or port: no credentials go there.
            headerList(for: handle, headers: options.headers.filter { !options.isSecretHeader($0) } + extra)
        } else if !extra.isEmpty {
            headerList(for: handle, headers: options.headers + extra)
        } else if let headerList {
            shim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        }
        shim_curl_setopt_data_function(handle, CURLOPT_WRITEFUNCTION, transferWriteCallback)
        shim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(state).toOpaque())
        shim_curl_setopt_xferinfo_function(handle, transferProgressCallback)
        shim_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, Unmanaged.passUnretained(state).toOpaque())
        shim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, state.errorBuffer)
    }

    /// Conditional requests and requests to another origin need their own header list
    /// (the shared one plus a validator, or without credentials); it is freed when the transfer ends.
    private var conditionalHeaders: [UnsafeMutableRawPointer: UnsafeMutablePointer<curl_slist>] = [:]

    private func headerList(for handle: UnsafeMutableRawPointer, headers: [String]) {
        let list = Self.slist(headers)
        conditionalHeaders[handle] = list
        shim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
    }

    private func collectFinished(_ completion: (CompletedTransfer) -> Void) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, handle)
            if let list = conditionalHeaders.removeValue(forKey: handle) { curl_slist_free_all(list) }
            guard let state = active.removeValue(forKey: handle) else { continue }
            if code != CURLE_OK && !state.discardedErrorBody && !state.stoppedAfterStreamEnd && !state.keepForResume() {
                state.discardFile()  // a failed attempt: its queued writes are dropped, not waited for
            }
            if state.hasQueuedWrites {
                writing[handle] = (state, code)
                let key = UInt(bitPattern: handle)
                state.whenWritten { [self] in
                    writtenLock.withLock { written.append(key) }
                    curl_multi_wakeup(multi)
                }
                continue
            }
            finish(state, handle: handle, code: code, completion: completion)
            idleHandles.append(handle)
        }
    }

    private func collectWritten(_ completion: (CompletedTransfer) -> Void) {
        let keys = writtenLock.withLock {
            defer { written.removeAll(keepingCapacity: true) }
            return written
        }
        for key in keys {
            guard let handle = UnsafeMutableRawPointer(bitPattern: key),
                  let (state, code) = writing.removeValue(forKey: handle) else { continue }
            finish(state, handle: handle, code: code, completion: completion)
            idleHandles.append(handle)
        }
    }

    private func finish(_ state: TransferState, handle: UnsafeMutableRawPointer, code: CURLcode, completion: (CompletedTransfer) -> Void) {
        options.requestLog?(RequestRecord.read(handle, url: state.url, attempt: state.attempts, code: code, detail: state.abortReason ?? state.errorDetail))
        if !isCancelled, let target = state.redirectToFollow ?? redirectTarget(of: handle, code: code), state.follow(to: target) {
            if state.resume == nil { state.discardFile() }
            start(state)
            return
        }
        // Bytes kept for resuming are written with the hash left open; it is ended once the rest arrived.
        let resuming = state.resume != nil
        var sha256 = resuming ? (state.flushWrites() ? "" : nil) : state.completeWrites()
        let response = ResponseInfo(handle: handle)
        let verdict = TransferVerdict(code: code, response: response, state: state)
        if verdict.dropsKeptBytes { state.discardFile() }
        // A resumed answer that ended cleanly but short (close-delimited, say): the next Range
        // starts where the bytes kept now end (`collectFinished` does this for a transfer that
        // failed); kept bytes that cannot be resumed again (more than the whole) start over.
        if resuming, code == CURLE_OK, state.continuing, verdict.failure != nil, !verdict.dropsKeptBytes, !state.keepForResume() {
            state.discardFile()
        }
        var handedOff: Double?
        if verdict.retryable && policy.allowsRetry(after: state.attempts) && !isCancelled {
            let wait = policy.delay(after: state.attempts, retryAfter: response.retryAfter)
            if let limit = options.handOffRetriesLongerThan, wait > limit {
                // A shared queue's retry: made after `wait` by whichever worker is free then.
                handedOff = wait
            } else {
                if !resuming || verdict.dropsKeptBytes { state.discardFile() }
                state.restartFromListedURL()
                state.attempts += 1
                retryQueue.append((Self.now() + wait, state))
                return
            }
        }
        if resuming && verdict.failure == nil { sha256 = state.completeWrites() }
        let body: CompletedTransfer.Body
        if let failure = verdict.failure {
            state.discardFile()
            body = verdict.refused ? .refused(reason: failure) : .failed(reason: failure)
        } else if response.status == 304 {
            state.discardFile()
            body = .notModified
        } else if let sha256, let file = state.takeFile() {
            body = .received(file, sha256: sha256, bytes: state.bytes, prefix: state.prefix)
        } else {
            body = .empty
        }
        // The library's disk full, or the object store a large body streams into unavailable:
        // no other body would fare better.
        if let error = state.writeError, stopError == nil,
           (error as? LibraryError) != nil || (error as? StoreUnavailable)?.storeIsUnavailable == true {
            stopError = error
            cancel()
        }
        completion(CompletedTransfer(
            request: state.request, body: body, attempts: state.attempts, httpStatus: response.status,
            contentType: response.contentType, etag: response.etag, lastModified: response.lastModified,
            finalURL: response.effectiveURL.map { URLValidator.withoutPassword($0) },
            warnings: verdict.warnings, contentDisposition: response.contentDisposition, retryAfter: handedOff))
    }

    /// Where a completed redirect response sends the request next; nil for any other response.
    private func redirectTarget(of handle: UnsafeMutableRawPointer, code: CURLcode) -> String? {
        var status = 0
        guard code == CURLE_OK, shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK else { return nil }
        return ResponseInfo.redirectTarget(handle, status: status)
    }

    /// On cancel: transfers whose download is complete are finished (their last
    /// writes waited for) and reported, so that their originals are kept.
    private func finishWritten(_ completion: (CompletedTransfer) -> Void) {
        for (handle, entry) in writing {
            finish(entry.state, handle: handle, code: entry.code, completion: completion)
            idleHandles.append(handle)
        }
        writing.removeAll()
    }

    /// URLs that were running or waiting to retry when the engine was cancelled.
    public private(set) var interruptedCount = 0

    private func abortAll() {
        interruptedCount = active.count + retryQueue.count + delayed.count
        for (handle, state) in active {
            curl_multi_remove_handle(multi, handle)
            if let list = conditionalHeaders.removeValue(forKey: handle) { curl_slist_free_all(list) }
            state.discardFile()
            idleHandles.append(handle)
        }
        active.removeAll()
        for entry in retryQueue + delayed { entry.state.discardFile() }
        retryQueue.removeAll()
        delayed.removeAll()
    }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// libcurl's write callback: forwards the bytes to the transfer's state.
private func transferWriteCallback(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata, let data else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(userdata).takeUnretainedValue()
    return state.receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// libcurl's progress callback: aborts a transfer that stalled (non-zero return).
private func transferProgressCallback(userdata: UnsafeMutableRawPointer?, downloadTotal: curl_off_t, downloaded: curl_off_t, uploadTotal: curl_off_t, uploaded: curl_off_t) -> Int32 {
    guard let userdata else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(userdata).takeUnretainedValue()
    return state.checkProgress(downloaded: Int64(downloaded)) ? 0 : 1
}
