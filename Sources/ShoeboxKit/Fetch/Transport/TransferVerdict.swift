import CCurl
import Foundation

/// Turns a finished attempt (curl result, HTTP status, callback state) into
/// success or a failure reason, and says whether another attempt may help.
struct TransferVerdict {
    /// nil on success.
    private(set) var failure: String?
    private(set) var retryable = false
    /// The response was refused by a limit (--max-size), not failed: outcome `rejected`.
    private(set) var refused = false
    /// The bytes kept for resuming cannot be completed: the next attempt starts from byte 0.
    private(set) var dropsKeptBytes = false
    /// Said of a body that is stored all the same.
    private(set) var warnings: [String] = []

    init(code: CURLcode, response: ResponseInfo, state: TransferState) {
        // First: a write that failed after curl had handed the bytes over ends
        // the transfer with CURLE_OK.
        if let error = state.writeError {
            failure = "\(error)"
            return
        }
        if let reason = state.redirectFailure {
            failure = reason
            return
        }
        // An error status decides whatever became of its page (drained, cut short, stalled):
        // a 404 whose page breaks off is still a 404, never retried.
        // A refusal made while libcurl handed over paused bytes (--limit-rate) does not end
        // the transfer with an error: the reason set then still decides.
        if (code == CURLE_OK && (state.abortReason == nil || state.stoppedAfterStreamEnd)) || (response.status ?? 0) >= 400
            || (code == CURLE_WRITE_ERROR && state.discardedErrorBody && state.abortReason == nil)
            || (code == CURLE_WRITE_ERROR && state.stoppedAfterStreamEnd) {
            judgeResponse(response, state: state)
            return
        }
        if let reason = state.abortReason {
            failure = reason
            retryable = state.stalled || state.badRange
            refused = state.oversize
            return
        }
        judgeError(code, response: response, detail: state.errorDetail.isEmpty ? String(cString: curl_easy_strerror(code)) : state.errorDetail, state: state)
    }

    /// A response that arrived whole: its status decides.
    private mutating func judgeResponse(_ response: ResponseInfo, state: TransferState) {
        let status = response.status ?? 0
        if status == 206 && state.continuing, let resume = state.resume {
            // The rest of a body resumed with Range: whole only when all of it is here.
            if state.bytes != resume.total {
                failure = "truncated body: \(state.bytes) of \(resume.total) bytes after resuming"
                retryable = true
            }
        } else if status == 206 {
            // A Range is sent only to resume: a part of the file must not pass for all of it.
            failure = "HTTP 206 Partial Content: the server sent part of the file though no range was asked"
            retryable = true
        } else if (200..<300).contains(status) {
            if state.resume != nil && !state.continuing {
                // Bytes were kept for a Range request, and the answer brought no body at all
                // (a 204, an empty 200): the kept part must not pass for the photo.
                failure = "resumed request answered HTTP \(status) with no body: the \(state.bytes) bytes kept are dropped and the download starts over"
                retryable = true
                dropsKeptBytes = true
            } else if let handle = state.handle, let range = ResponseInfo.header(handle, "Content-Range"),
               let part = Self.partOfWhole(contentRange: range, received: state.bytes) {
                // Meaningless on a 200 by the letter of HTTP, but a server that says it sent
                // part of a file is taken at its word: a part must not pass for the photo.
                failure = "partial body: Content-Range says these are bytes \(part) (the server sent part of the file though no range was asked)"
                retryable = true
            } else if let coding = state.unfinishedCoding {
                failure = "truncated body: its \(coding) stream ends before its end"
                retryable = true
            } else if let whole = state.closeDelimitedBodyIsWhole(), !whole {
                let format = FormatSniffer.sniff(state.prefix).map { "\($0.rawValue.uppercased()) " } ?? ""
                failure = "truncated body: the connection closed before the end of the \(format)image"
                    + " (no Content-Length or chunked framing to check the length against)"
                retryable = true
            } else if state.closeDelimitedBodyIsWhole() == nil {
                let format = FormatSniffer.sniff(state.prefix)?.rawValue.uppercased() ?? "image"
                let why = "the server closed the connection with no Content-Length or chunked framing, and a \(format)"
                    + " file has no end marker to check"
                if state.storesUnprovenBodies {
                    warnings.append("possibly-truncated: \(why); stored as received (--allow-unproven-end)")
                } else {
                    failure = "end of body unproven: \(why), so a cut-off file cannot be told from a whole one"
                        + " (--allow-unproven-end stores such bodies with a warning)"
                    retryable = true
                }
            } else if state.bytes == 0 && status != 204 && status != 205,
                      let handle = state.handle, ResponseFraming(handle).isDelimitedByClose {
                // Nothing says where the body should have ended: a connection closed
                // early (even inside the headers) looks just like an empty body.
                failure = "connection closed before any body arrived"
                retryable = true
            }
        } else if !(status == 304 && state.request.isConditional) {
            failure = "HTTP \(status)" + (HTTPStatusText.phrase(status).map { " \($0)" } ?? "")
            retryable = RetryPolicy.retryableStatuses.contains(status)
        }
    }

    /// "FIRST-LAST of TOTAL" when a Content-Range value (`bytes FIRST-LAST/TOTAL`) says the
    /// body is part of a file: it starts past the file's first byte, or fewer bytes arrived than
    /// the file's total. nil when the header cannot be read, or the bytes received are the whole
    /// file whatever its range says (a server off by one in LAST sent all of it).
    static func partOfWhole(contentRange value: String, received: Int64) -> String? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = UInt64(bounds[0]), let last = UInt64(bounds[1]), first <= last else { return nil }
        let total = UInt64(halves[1])
        guard first > 0 || total.map({ UInt64(max(received, 0)) < $0 }) == true else { return nil }
        return "\(first)-\(last) of " + (total.map { "\($0)" } ?? "an unknown total")
    }

    private mutating func judgeError(_ code: CURLcode, response: ResponseInfo, detail: String, state: TransferState) {
        switch code {
        case CURLE_PARTIAL_FILE:
            failure = "truncated body: \(detail)"
            retryable = true
        case CURLE_OPERATION_TIMEDOUT where detail.contains("too slow"):
            failure = "too slow (below --speed-limit for --speed-time): \(detail)"
            retryable = true
        case CURLE_OPERATION_TIMEDOUT:
            failure = "timed out: \(detail)"
            retryable = true
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_GOT_NOTHING, CURLE_SEND_ERROR,
             CURLE_RECV_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR:
            failure = "connection error: \(detail)"
            retryable = true
        case CURLE_UNSUPPORTED_PROTOCOL:
            failure = "unsupported response: \(detail)"
        case CURLE_OUT_OF_MEMORY where state.bytes == 0:
            // libcurl's answer to a response header over its 100 KB limit.
            failure = "response headers too large (over 100 KiB) or out of memory: \(detail)"
        default:
            failure = detail
        }
    }
}
