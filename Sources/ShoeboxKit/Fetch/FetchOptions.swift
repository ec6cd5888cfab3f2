import Foundation

/// How `fetch` downloads: concurrency, timeouts, retries, limits, headers.
public struct FetchOptions: Sendable {
    /// Transfers at once.
    public var jobs = 16
    /// Connections to one host at once.
    public var perHost = 6
    public var connectTimeout: Double = 10
    /// A transfer that receives nothing for this long is aborted (and retried).
    public var stallTimeout: Double = 30
    /// A transfer slower than this many bytes a second for `speedTime` seconds is aborted
    /// (and retried): a server trickling a byte at a time cannot hold a transfer for ever. 0: off.
    public var speedLimit = 512
    public var speedTime: Double = 30
    /// The longest one request may take in all, in seconds; 0: no limit.
    public var maxTime: Double = 0
    /// Retries after connection errors, stalls, truncation, 408/429/5xx.
    public var retries = 3
    /// The longest wait before a retry, even when Retry-After asks for more.
    public var maxRetryWait: Double = 120
    /// First backoff delay; doubles each attempt, with jitter.
    public var retryBaseDelay: Double = 1
    /// With a shared work queue: a retry that would wait longer than this many seconds is not
    /// waited for here but handed back to the queue (`CompletedTransfer.retryAfter`), so
    /// whichever worker is free then makes it. nil: every retry is made here.
    public var handOffRetriesLongerThan: Double?
    /// Largest body accepted, in bytes.
    public var maxSize: Int64 = 200 * 1024 * 1024
    public var userAgent = "shoebox/\(Shoebox.version)"
    /// Extra request headers, "Name: value".
    public var headers: [String] = []
    /// Names of headers (besides Authorization, Cookie and Proxy-Authorization) that carry
    /// credentials: none of them is sent after a redirect to another scheme, host or port.
    public var secretHeaders: [String] = []
    /// Headers that carry credentials whatever the user says.
    public static let credentialHeaders = ["authorization", "cookie", "proxy-authorization"]
    /// A PEM file of CA certificates to verify HTTPS servers against, instead of the system's.
    public var caCertificates: String?
    /// "HOST:PORT:ADDRESS": connect to ADDRESS for HOST:PORT instead of looking HOST up
    /// (curl's --resolve); URLs, the Host header and TLS names keep HOST. HOST is the
    /// name as sent: an international name in its ASCII (xn--) form.
    public var resolve: [String] = []
    /// Store a body whose end cannot be proven (closed connection, format without an end
    /// marker) with a `possibly-truncated` warning, instead of failing it.
    public var allowUnprovenEnd = false
    /// Revalidate archived URLs with If-None-Match / If-Modified-Since instead of skipping them.
    public var refresh = false
    /// The most bytes a second the whole run receives, all transfers together (0: no limit):
    /// see RateBudget.
    public var limitRate: Int64 = 0
    /// Seconds at least between the starts of two requests to one host name (0: none).
    public var waitBetween: Double = 0
    /// A Netscape/Mozilla cookie file read at the start (libcurl's cookie engine).
    public var cookieFile: String?
    /// Where the cookies known at the end of the run are written (Netscape format).
    public var cookieJar: String?
    /// Take credentials for a listed URL's host from a netrc file: `netrcFile`, or ~/.netrc.
    public var netrc = false
    public var netrcFile: String?
    /// Called on the transfer thread for every HTTP request as it ends (`fetch --verbose`).
    public var requestLog: (@Sendable (RequestRecord) -> Void)?

    public init() {}

    /// Throws `FetchRunError.invalidOption` for values the engine cannot run with (the
    /// command line refuses them too; this guards callers of the library).
    public func validate() throws {
        func require(_ valid: Bool, _ what: @autoclosure () -> String) throws {
            if !valid { throw FetchRunError.invalidOption(what()) }
        }
        try require((1...1000).contains(jobs), "jobs \(jobs): 1 to 1000 transfers at once")
        try require((1...1000).contains(perHost), "per-host \(perHost): 1 to 1000 connections")
        try require(connectTimeout.isFinite && connectTimeout > 0, "connect-timeout \(connectTimeout): seconds above 0")
        try require(stallTimeout.isFinite && stallTimeout > 0, "stall-timeout \(stallTimeout): seconds above 0")
        try require(speedLimit >= 0, "speed-limit \(speedLimit): 0 bytes a second or more")
        try require(speedTime.isFinite && speedTime >= 1, "speed-time \(speedTime): 1 second or more")
        try require(maxTime.isFinite && maxTime >= 0, "max-time \(maxTime): 0 seconds or more")
        try require(retries >= 0, "retries \(retries): 0 or more")
        try require(maxRetryWait.isFinite && maxRetryWait >= 0, "max-retry-wait \(maxRetryWait): 0 seconds or more")
        try require(retryBaseDelay.isFinite && retryBaseDelay >= 0, "retry base delay \(retryBaseDelay): 0 seconds or more")
        try require(maxSize > 0, "max-size \(maxSize): more than 0 bytes")
        try require(limitRate >= 0, "limit-rate \(limitRate): 0 bytes a second or more")
        try require(waitBetween.isFinite && waitBetween >= 0, "wait-between \(waitBetween): 0 seconds or more")
        try require(Self.isHeaderValue(userAgent), "user-agent '\(userAgent)': one line of text (no line break or control character)")
        for header in headers {
            try require(Self.isHeader(header), "header '\(header)': 'Name: value' on one line, the name without spaces")
        }
        for entry in resolve { try require(Self.isResolveEntry(entry), "resolve '\(entry)': HOST:PORT:ADDRESS") }
    }

    /// Whether a "Name: value" header carries credentials (kept from other origins).
    func isSecretHeader(_ header: String) -> Bool {
        let name = header.prefix { $0 != ":" && $0 != ";" }.trimmingWhitespace().lowercased()
        return Self.credentialHeaders.contains(name) || secretHeaders.contains { $0.lowercased() == name }
    }

    /// "Name: value" (or curl's "Name;" for an empty value): the name an HTTP token, the
    /// value on one line (a line break would smuggle in another header).
    public static func isHeader(_ header: String) -> Bool {
        if header.hasSuffix(";"), isToken(header.dropLast()) { return true }
        guard let colon = header.firstIndex(of: ":"), isToken(header[..<colon]) else { return false }
        return isHeaderValue(String(header[header.index(after: colon)...]))
    }

    /// A header name: an HTTP token.
    public static func isHeaderName(_ name: String) -> Bool {
        isToken(Substring(name))
    }

    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isTokenCharacter)
    }

    /// Text without control characters (tab allowed), so it stays on its header line.
    static func isHeaderValue(_ value: String) -> Bool {
        !value.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }

    /// RFC 9110's tchar: letters, digits and !#$%&'*+-.^_`|~.
    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
    }

    /// HOST:PORT:ADDRESS[,ADDRESS...]: an ASCII host (curl matches the name as sent, an
    /// international one in its xn-- form), a port in 1...65535, IPv4 or bracketed IPv6 addresses.
    public static func isResolveEntry(_ entry: String) -> Bool {
        let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty,
              parts[0].unicodeScalars.allSatisfy({ $0.isASCII && !$0.properties.isWhitespace }),
              let port = Int(parts[1]), (1...65535).contains(port) else { return false }
        let addresses = parts[2].split(separator: ",", omittingEmptySubsequences: false)
        return addresses.allSatisfy { address in
            var bytes = in6_addr()
            if address.hasPrefix("["), address.hasSuffix("]"), address.count > 2 {
                return inet_pton(AF_INET6, String(address.dropFirst().dropLast()), &bytes) == 1
            }
            return inet_pton(AF_INET, String(address), &bytes) == 1
        }
    }
}
