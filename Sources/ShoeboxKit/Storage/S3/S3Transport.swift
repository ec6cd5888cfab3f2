import CCurl
import CShim
import Foundation

/// Sends signed S3 requests with plain libcurl easy handles, synchronously, on the caller's
/// thread. Idle handles (and so their connections) are kept in a small lock-protected pool:
/// several threads may call at once, each with its own handle.
///
/// Signing is libcurl's CURLOPT_AWS_SIGV4 ("aws:amz:REGION:s3"). libcurl 7.88 signs the
/// path and query exactly as written in the URL and every header given in
/// CURLOPT_HTTPHEADER, and adds no `x-amz-content-sha256`: the transport sends that header
/// itself (the SHA-256 of the in-memory body, the one a file body was declared with, or
/// that of the empty string) and writes the URL in canonical form (S3URIEncoding: query
/// sorted by name, everything RFC 3986-encoded).
///
/// A file body (`S3FileSlice`) is streamed from the file with CURLOPT_READFUNCTION, a buffer
/// of libcurl's at a time, and hashed as it goes (see `S3CallContext.readFile`).
final class S3Transport: @unchecked Sendable {
    static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// Statuses that mean "try again later".
    static let retryableStatuses: Set<Int> = [500, 502, 503, 504]
    static let retryableCodes: Set<String> = ["SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout"]

    let configuration: S3Configuration
    private let lock = NSLock()
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let maxIdleHandles = 8
    private let sleep: @Sendable (Double) -> Void

    init(configuration: S3Configuration, sleep: @escaping @Sendable (Double) -> Void = { seconds in
        if seconds > 0 { usleep(useconds_t(min(seconds, 60) * 1_000_000)) }
    }) {
        self.configuration = configuration
        self.sleep = sleep
    }

    deinit {
        for handle in idleHandles { curl_easy_cleanup(handle) }
    }

    /// Sends `request`, retrying transient failures; returns a 2xx answer or throws
    /// `S3Error` (or what `receive` threw). With `receive`, a 2xx body goes there as it
    /// arrives instead of into the response (and a failure after bytes went there is not
    /// retried: the receiver cannot take them back).
    func perform(_ request: S3Request, receive: ((UnsafeRawBufferPointer) throws -> Void)? = nil) throws -> S3Response {
        let policy = configuration.retryPolicy
        var attempt = 1
        while true {
            let outcome = attemptOnce(request, receive: receive)
            let retryable: Bool
            let failure: Error
            switch outcome {
            case .answered(let response, let delivered):
                if (200..<300).contains(response.status) { return response }
                let (code, message) = Self.errorCodeAndMessage(response.body)
                retryable = delivered == 0
                    && (Self.retryableStatuses.contains(response.status) || code.map(Self.retryableCodes.contains) == true)
                failure = mapError(status: response.status, code: code, message: message, request: request)
            case .failed(let error, let retryableFailure, let delivered):
                retryable = retryableFailure && delivered == 0
                failure = error
            }
            guard retryable, attempt < policy.maxAttempts else { throw failure }
            sleep(policy.delay(after: attempt))
            attempt += 1
        }
    }

    private enum Outcome {
        case answered(S3Response, delivered: Int)
        case failed(Error, retryable: Bool, delivered: Int)
    }

    private func checkOut() -> UnsafeMutableRawPointer? {
        lock.lock()
        let handle = idleHandles.popLast()
        lock.unlock()
        if let handle {
            curl_easy_reset(handle)
            return handle
        }
        return curl_easy_init()
    }

    private func checkIn(_ handle: UnsafeMutableRawPointer) {
        lock.lock()
        if idleHandles.count < maxIdleHandles {
            idleHandles.append(handle)
            lock.unlock()
        } else {
            lock.unlock()
            curl_easy_cleanup(handle)
        }
    }

    private func attemptOnce(_ request: S3Request, receive: ((UnsafeRawBufferPointer) throws -> Void)?) -> Outcome {
        guard let handle = checkOut() else {
            return .failed(S3Error.transferFailed(request: request.summary, reason: "libcurl could not make a handle"),
                           retryable: false, delivered: 0)
        }
        var keepHandle = true
        defer { if keepHandle { checkIn(handle) } else { curl_easy_cleanup(handle) } }
        let context = S3CallContext(handle: handle, upload: request.body, receive: receive)
        do {
            try context.openUpload()
        } catch {
            return .failed(error, retryable: false, delivered: 0)
        }
        let url = configuration.url(
            bucket: request.bucket, key: request.key, query: S3URIEncoding.canonicalQuery(request.query))

        var headerLines = [String]()
        let payloadHash: String
        switch request.body {
        case .data(let body)?:
            let hasher = SHA256Hasher()
            hasher.update(body)
            payloadHash = hasher.finalizeHex()
        case .file(let slice)?:
            payloadHash = slice.sha256.lowercased()
        case nil:
            payloadHash = Self.emptyPayloadSHA256
        }
        headerLines.append("x-amz-content-sha256: \(payloadHash)")
        if let token = configuration.sessionToken { headerLines.append("x-amz-security-token: \(token)") }
        for (name, value) in request.headers { headerLines.append("\(name): \(value)") }
        let headerList = headerLines.reduce(nil as UnsafeMutablePointer<curl_slist>?) { curl_slist_append($0, $1) }
        defer { curl_slist_free_all(headerList) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        let long = { (option: CURLoption, value: Int) in _ = shim_curl_setopt_long(handle, option, value) }
        let string = { (option: CURLoption, value: String) in _ = shim_curl_setopt_string(handle, option, value) }
        string(CURLOPT_URL, url)
        string(CURLOPT_PROTOCOLS_STR, "http,https")
        long(CURLOPT_FOLLOWLOCATION, 0)
        long(CURLOPT_NOSIGNAL, 1)
        // The key is sent as written: "a/../b" and "a/./b" are keys, not paths to tidy up.
        long(CURLOPT_PATH_AS_IS, 1)
        long(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        long(CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit)
        long(CURLOPT_LOW_SPEED_TIME, configuration.lowSpeedTime)
        long(CURLOPT_BUFFERSIZE, 256 * 1024)
        long(CURLOPT_HTTP_CONTENT_DECODING, 0)
        string(CURLOPT_USERAGENT, "shoebox/\(Shoebox.version)")
        string(CURLOPT_AWS_SIGV4, "aws:amz:\(configuration.region):s3")
        // Separately: an access key may contain ':' ("test:tester"), which "user:password" would split.
        string(CURLOPT_USERNAME, configuration.accessKeyID)
        string(CURLOPT_PASSWORD, configuration.secretAccessKey)
        shim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        shim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        let userdata = Unmanaged.passUnretained(context).toOpaque()
        shim_curl_setopt_data_function(handle, CURLOPT_WRITEFUNCTION, s3WriteCallback)
        shim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, userdata)
        shim_curl_setopt_data_function(handle, CURLOPT_HEADERFUNCTION, s3HeaderCallback)
        shim_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, userdata)
        switch request.method {
        case "HEAD":
            long(CURLOPT_NOBODY, 1)
        case "GET":
            long(CURLOPT_HTTPGET, 1)
        case "PUT":
            long(CURLOPT_UPLOAD, 1)
            // Fewer, larger reads of a file body (libcurl's default is 64 KiB).
            long(CURLOPT_UPLOAD_BUFFERSIZE, 256 * 1024)
            _ = shim_curl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body?.count ?? 0))
            shim_curl_setopt_data_function(handle, CURLOPT_READFUNCTION, s3ReadCallback)
            shim_curl_setopt_pointer(handle, CURLOPT_READDATA, userdata)
            _ = shim_curl_setopt_seek_function(handle, s3SeekCallback)
            shim_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, userdata)
        case "POST":
            long(CURLOPT_POST, 1)
            _ = shim_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body?.count ?? 0))
            shim_curl_setopt_data_function(handle, CURLOPT_READFUNCTION, s3ReadCallback)
            shim_curl_setopt_pointer(handle, CURLOPT_READDATA, userdata)
            _ = shim_curl_setopt_seek_function(handle, s3SeekCallback)
            shim_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, userdata)
        default:
            string(CURLOPT_CUSTOMREQUEST, request.method)
        }

        let code = withExtendedLifetime(context) { curl_easy_perform(handle) }
        if code == CURLE_OK {
            let status = context.status()
            if (200..<300).contains(status), !context.uploadSentWhole {
                // A success before the whole file body was read (and checked): not taken as stored.
                keepHandle = false
                return .failed(S3Error.invalidResponse("\(request.summary) was answered \(status) before its whole body was sent"),
                               retryable: false, delivered: context.delivered)
            }
            return .answered(S3Response(status: status, headers: context.headers, body: context.body),
                             delivered: context.delivered)
        }
        // A handle whose transfer failed may hold a broken connection: not reused.
        keepHandle = false
        if let receiverError = context.receiverError {
            return .failed(receiverError, retryable: false, delivered: context.delivered)
        }
        if let uploadError = context.uploadError {
            // The file body ended early, changed, or could not be read: sending it again would not help.
            return .failed(uploadError, retryable: false, delivered: context.delivered)
        }
        let detail = String(cString: errorBuffer)
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let endpoint = configuration.endpointName(bucket: request.bucket)
        switch code {
        case CURLE_COULDNT_CONNECT:
            return .failed(S3Error.endpointUnreachable(endpoint: endpoint, reason: reason), retryable: true, delivered: context.delivered)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR,
             CURLE_PEER_FAILED_VERIFICATION, CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .failed(S3Error.endpointUnreachable(endpoint: endpoint, reason: reason), retryable: false, delivered: context.delivered)
        case CURLE_OPERATION_TIMEDOUT:
            return .failed(S3Error.timedOut(endpoint: endpoint, reason: reason), retryable: true, delivered: context.delivered)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM,
             CURLE_SEND_FAIL_REWIND:
            return .failed(S3Error.transferFailed(request: request.summary, reason: reason), retryable: true, delivered: context.delivered)
        default:
            return .failed(S3Error.transferFailed(request: request.summary, reason: reason), retryable: false, delivered: context.delivered)
        }
    }

    /// The `<Code>` and `<Message>` of an S3 error body, when it has them.
    static func errorCodeAndMessage(_ body: Data) -> (code: String?, message: String?) {
        guard !body.isEmpty, let root = S3XMLElement.parse(body), root.name == "Error" else { return (nil, nil) }
        return (root.value("Code"), root.value("Message"))
    }

    /// The typed error for an error answer. S3's messages are kept; its details (for a
    /// signature mismatch: the string to sign, the signature) are not.
    func mapError(status: Int, code: String?, message: String?, request: S3Request) -> S3Error {
        switch code {
        case "NoSuchBucket":
            return .noSuchBucket(bucket: request.bucket ?? "")
        case "NoSuchKey":
            return .noSuchKey(bucket: request.bucket ?? "", key: request.key ?? "")
        case "NoSuchUpload":
            return .noSuchUpload(uploadID: request.query.first { $0.name == "uploadId" }?.value ?? "")
        case "SignatureDoesNotMatch":
            return .signatureMismatch(accessKeyID: configuration.accessKeyID)
        case "InvalidAccessKeyId":
            return .unknownAccessKey(accessKeyID: configuration.accessKeyID)
        case "AccessDenied":
            return .accessDenied(resource: request.resource, message: message ?? "Access Denied")
        case "RequestTimeTooSkewed":
            return .clockSkewed(message: message ?? "the difference between the request time and the server's time is too large")
        case nil where request.method == "HEAD" && status == 404:
            // A HEAD answer has no body to tell which is missing.
            return request.key == nil ? .noSuchBucket(bucket: request.bucket ?? "")
                : .noSuchKey(bucket: request.bucket ?? "", key: request.key ?? "")
        case nil where status == 403:
            return .accessDenied(
                resource: request.resource,
                message: "HTTP 403 without details (wrong AWS_SECRET_ACCESS_KEY or AWS_ACCESS_KEY_ID, or no permission)")
        default:
            return .http(status: status, code: code, message: message, request: request.summary)
        }
    }
}

/// What libcurl's callbacks fill in for one attempt.
final class S3CallContext {
    let handle: UnsafeMutableRawPointer
    let upload: S3Request.Body?
    /// Where libcurl's next read starts, from the start of the body.
    var uploadOffset: Int64 = 0
    /// A file body's descriptor (`openUpload`), closed with the context.
    private var uploadDescriptor: Int32 = -1
    /// The bytes of a file body handed to libcurl so far, from its start (made by `openUpload`).
    private var uploadHasher: SHA256Hasher?
    /// A file body was read to its end and hashed to its declared SHA-256.
    private var uploadChecked = false
    /// Why a file body could not be sent (it ended early, changed, or could not be read); the
    /// read callback then aborted the transfer.
    var uploadError: Error?
    let receive: ((UnsafeRawBufferPointer) throws -> Void)?
    var receiverError: Error?
    var headers: [String: String] = [:]
    var body = Data()
    /// Bytes handed to `receive`.
    var delivered = 0
    /// An error answer's body is kept up to this size (enough for any S3 error document).
    static let maxErrorBody = 1 << 20

    init(handle: UnsafeMutableRawPointer, upload: S3Request.Body?, receive: ((UnsafeRawBufferPointer) throws -> Void)?) {
        self.handle = handle
        self.upload = upload
        self.receive = receive
    }

    deinit {
        if uploadDescriptor >= 0 { close(uploadDescriptor) }
    }

    /// Opens a file body.
    func openUpload() throws {
        guard case .file(let slice)? = upload else { return }
        uploadDescriptor = open(slice.path, O_RDONLY | O_CLOEXEC)
        guard uploadDescriptor >= 0 else { throw POSIXFileError(path: slice.path, operation: "open", code: errno) }
        uploadHasher = SHA256Hasher()
    }

    /// Whether the whole body went to libcurl (for a file body: and hashed to what it was declared as).
    var uploadSentWhole: Bool {
        guard case .file(let slice)? = upload, slice.length > 0 else { return true }
        return uploadChecked
    }

    func status() -> Int {
        var code = 0
        _ = shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        let status = status()
        if let receive, (200..<300).contains(status) {
            do {
                try receive(bytes)
            } catch {
                receiverError = error
                return 0
            }
            delivered += bytes.count
            return bytes.count
        }
        if receive != nil || !(200..<300).contains(status) {
            if body.count < Self.maxErrorBody { body.append(contentsOf: bytes.prefix(Self.maxErrorBody - body.count)) }
            return bytes.count
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    func header(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new answer (after 100 Continue): its headers only.
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headers[name] = value
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch upload {
        case nil:
            return 0
        case .data(let data)?:
            let offset = Int(uploadOffset)
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
            uploadOffset += Int64(count)
            return count
        case .file(let slice)?:
            return readFile(slice, into: buffer)
        }
    }

    /// Fills libcurl's buffer from the file and hashes what it hands over. Before the last
    /// bytes go, the hash of the whole body is compared with the declared one: a file that
    /// changed since it was hashed aborts the transfer (the server never gets the whole body),
    /// as does one that ends early or cannot be read.
    private func readFile(_ slice: S3FileSlice, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let uploadHasher else { return Self.readAbort }
        let want = Int(min(Int64(buffer.count), slice.length - uploadOffset))
        guard want > 0 else { return 0 }
        var got = 0
        while got < want {
            let count = pread(uploadDescriptor, buffer.baseAddress! + got, want - got,
                              off_t(slice.offset + uploadOffset + Int64(got)))
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                uploadError = POSIXFileError(path: slice.path, operation: "read", code: errno)
                return Self.readAbort
            }
            if count == 0 {
                uploadError = S3StoreError.shortRead(path: slice.path)
                return Self.readAbort
            }
            got += count
        }
        uploadHasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
        uploadOffset += Int64(got)
        if uploadOffset == slice.length {
            guard uploadHasher.finalizeHex() == slice.sha256.lowercased() else {
                uploadError = S3StoreError.contentChanged(path: slice.path, sha256: slice.sha256)
                return Self.readAbort
            }
            uploadChecked = true
        }
        return got
    }

    private static let readAbort = Int(CURL_READFUNC_ABORT)

    /// Moves libcurl's read position (a rewind to send the body again). A file body is
    /// hashed as it is read, so it can only go back to its start.
    func seek(to offset: Int64) -> Bool {
        switch upload {
        case .file?:
            guard offset == 0 else { return false }
            uploadHasher = SHA256Hasher()
            uploadChecked = false
        case .data(let data)?:
            guard offset <= Int64(data.count) else { return false }
        case nil:
            guard offset == 0 else { return false }
        }
        uploadOffset = offset
        return true
    }
}

private func s3WriteCallback(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata else { return 0 }
    let context = Unmanaged<S3CallContext>.fromOpaque(userdata).takeUnretainedValue()
    guard let data else { return size * count == 0 ? 0 : 0 }
    return context.write(UnsafeRawBufferPointer(start: data, count: size * count))
}

private func s3HeaderCallback(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata, let data else { return 0 }
    let context = Unmanaged<S3CallContext>.fromOpaque(userdata).takeUnretainedValue()
    context.header(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

/// Rewinds an upload libcurl must send again (CURL_SEEKFUNC_OK, or CANTSEEK for anything but an
/// absolute offset in an in-memory body or the start of a file body).
private func s3SeekCallback(userdata: UnsafeMutableRawPointer?, offset: curl_off_t, origin: Int32) -> Int32 {
    guard let userdata else { return 2 }
    let context = Unmanaged<S3CallContext>.fromOpaque(userdata).takeUnretainedValue()
    guard origin == SEEK_SET, offset >= 0, context.seek(to: Int64(offset)) else { return 2 }
    return 0
}

private func s3ReadCallback(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata, let data else { return 0 }
    let context = Unmanaged<S3CallContext>.fromOpaque(userdata).takeUnretainedValue()
    return context.read(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}
