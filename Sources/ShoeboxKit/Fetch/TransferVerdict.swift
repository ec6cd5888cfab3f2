import CCurl
import Foundation

/// Turns a finished attempt (curl result, HTTP status, callback state) into
/// success or a failure reason, and says whether another attempt may help.
struct TransferVerdict {
    /// nil on success.
    let failure: String?
    let retryable: Bool

    init(code: CURLcode, response: ResponseInfo, state: TransferState) {
        let status = response.status ?? 0
        // First: a write that failed after curl had handed the bytes over ends
        // the transfer with CURLE_OK.
        if let error = state.writeError {
            failure = "\(error)"
            retryable = false
            return
        }
        if code == CURLE_OK || (code == CURLE_WRITE_ERROR && state.discardedErrorBody && state.abortReason == nil) {
            if (200..<300).contains(status) || (status == 304 && state.request.isConditional) {
                failure = nil
                retryable = false
            } else {
                failure = "HTTP \(status)" + (HTTPStatusText.phrase(status).map { " \($0)" } ?? "")
                retryable = RetryPolicy.retryableStatuses.contains(status)
            }
            return
        }
        if let reason = state.abortReason {
            failure = reason
            retryable = state.stalled
            return
        }
        let detail = state.errorDetail.isEmpty ? String(cString: curl_easy_strerror(code)) : state.errorDetail
        switch code {
        case CURLE_FILESIZE_EXCEEDED:
            failure = "Content-Length exceeds --max-size (\(ByteSize.format(state.maxSize))); not downloaded"
            retryable = false
        case CURLE_PARTIAL_FILE:
            failure = "truncated body: \(detail)"
            retryable = true
        case CURLE_OPERATION_TIMEDOUT:
            failure = "timed out: \(detail)"
            retryable = true
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_GOT_NOTHING, CURLE_SEND_ERROR,
             CURLE_RECV_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR:
            failure = "connection error: \(detail)"
            retryable = true
        case CURLE_TOO_MANY_REDIRECTS:
            failure = "too many redirects (more than 10): \(detail)"
            retryable = false
        case CURLE_UNSUPPORTED_PROTOCOL:
            failure = "redirect to an unsupported scheme (only http and https are followed): \(detail)"
            retryable = false
        default:
            failure = detail
            retryable = false
        }
    }
}
