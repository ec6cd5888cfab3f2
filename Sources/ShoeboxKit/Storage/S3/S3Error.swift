/// What went wrong talking to an object store, in words a user can act on. Messages never
/// contain the secret key, the session token or a signature.
public enum S3Error: Error, CustomStringConvertible, Sendable {
    /// An `s3://` location that cannot be used (the message says why).
    case invalidLocation(String)
    /// The environment lacks credentials; `missing` names the variables.
    case missingCredentials(missing: [String])
    /// A setting that cannot be used (an endpoint URL that is not http or https…).
    case invalidConfiguration(String)
    case noSuchBucket(bucket: String)
    /// The object does not exist (GET, HEAD, copy source, delete on some servers).
    case noSuchKey(bucket: String, key: String)
    /// The multipart upload does not exist (completed, aborted, or never made).
    case noSuchUpload(uploadID: String)
    /// 403 SignatureDoesNotMatch: the secret key is not the one of the access key (OpenStack
    /// Swift's s3api also answers so for an access key it does not know).
    case signatureMismatch(accessKeyID: String)
    /// 403 InvalidAccessKeyId: the server knows no such access key.
    case unknownAccessKey(accessKeyID: String)
    /// 403 AccessDenied (or a 403 without details).
    case accessDenied(resource: String, message: String)
    /// 403 RequestTimeTooSkewed: this machine's clock is off.
    case clockSkewed(message: String)
    /// No connection: refused, unknown host, TLS failure. `reason` is libcurl's.
    case endpointUnreachable(endpoint: String, reason: String)
    /// The server stopped answering (connect timeout or transfer below the speed limit).
    case timedOut(endpoint: String, reason: String)
    /// Any other error answer: HTTP status, S3 error code and message when the body had them.
    case http(status: Int, code: String?, message: String?, request: String)
    /// A 2xx answer whose body or headers could not be understood.
    case invalidResponse(String)
    /// Another libcurl failure.
    case transferFailed(request: String, reason: String)

    public var description: String {
        switch self {
        case .invalidLocation(let message), .invalidConfiguration(let message):
            return message
        case .missingCredentials(let missing):
            return "no S3 credentials: set \(missing.joined(separator: " and ")) in the environment "
                + "(AWS_SESSION_TOKEN too for temporary credentials)"
        case .noSuchBucket(let bucket):
            return "the bucket '\(bucket)' does not exist (or is in another account or region)"
        case .noSuchKey(let bucket, let key):
            return "no object s3://\(bucket)/\(key)"
        case .noSuchUpload(let uploadID):
            return "the multipart upload \(uploadID) does not exist (already completed or aborted)"
        case .signatureMismatch(let accessKeyID):
            return "the secret key does not match AWS_ACCESS_KEY_ID \(accessKeyID) (403 SignatureDoesNotMatch): "
                + "check AWS_SECRET_ACCESS_KEY (some servers, OpenStack Swift among them, also answer so when they "
                + "do not know the access key)"
        case .unknownAccessKey(let accessKeyID):
            return "unknown access key \(accessKeyID) (403 InvalidAccessKeyId): check AWS_ACCESS_KEY_ID and the endpoint"
        case .accessDenied(let resource, let message):
            return "access denied to \(resource): \(message)"
        case .clockSkewed(let message):
            return "this machine's clock is off by too much for the server to accept signed requests "
                + "(RequestTimeTooSkewed: \(message)); set the clock right (e.g. with NTP)"
        case .endpointUnreachable(let endpoint, let reason):
            return "cannot reach the S3 endpoint \(endpoint): \(reason)"
        case .timedOut(let endpoint, let reason):
            return "the S3 endpoint \(endpoint) stopped answering: \(reason)"
        case .http(let status, let code, let message, let request):
            var text = "\(request) failed: HTTP \(status)"
            if let code { text += " \(code)" }
            if let message, !message.isEmpty { text += ": \(message)" }
            return text
        case .invalidResponse(let message):
            return "unexpected answer from the S3 server: \(message)"
        case .transferFailed(let request, let reason):
            return "\(request) failed: \(reason)"
        }
    }
}
