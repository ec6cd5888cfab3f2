/// How `fetch` downloads: concurrency, timeouts, retries, limits, headers.
public struct FetchOptions: Sendable {
    /// Transfers at once.
    public var jobs = 16
    /// Connections to one host at once.
    public var perHost = 6
    public var connectTimeout: Double = 10
    /// A transfer that receives nothing for this long is aborted (and retried).
    public var stallTimeout: Double = 30
    /// Retries after connection errors, stalls, truncation, 408/429/5xx.
    public var retries = 3
    /// The longest wait before a retry, even when Retry-After asks for more.
    public var maxRetryWait: Double = 120
    /// First backoff delay; doubles each attempt, with jitter.
    public var retryBaseDelay: Double = 1
    /// Largest body accepted, in bytes.
    public var maxSize: Int64 = 200 * 1024 * 1024
    public var userAgent = "shoebox/\(Shoebox.version)"
    /// Extra request headers, "Name: value".
    public var headers: [String] = []
    /// A PEM file of CA certificates to verify HTTPS servers against, instead of the system's.
    public var caCertificates: String?
    /// "HOST:PORT:ADDRESS": connect to ADDRESS for HOST:PORT instead of looking HOST up
    /// (curl's --resolve); URLs, the Host header and TLS names keep HOST. HOST is the
    /// name as sent: an international name in its ASCII (xn--) form.
    public var resolve: [String] = []
    /// Revalidate archived URLs with If-None-Match / If-Modified-Since instead of skipping them.
    public var refresh = false

    public init() {}
}
