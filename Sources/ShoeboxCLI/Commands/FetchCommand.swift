import Foundation
import ShoeboxKit

/// `shoebox fetch [LIST ...] [--url URL ...] --library DIR`.
public enum FetchCommand: Command {
    public static let spec = CommandSpec(
        name: "fetch",
        abstract: "Download image URLs into the library as untouched originals.",
        arguments: "[LIST ...]",
        options: [
            LibraryOption.spec,
            LibraryOption.storeSpec,
            LibraryOption.catalogSpec,
            OptionSpec("url", .values("URL"), help: "A URL to fetch, besides the lists."),
            OptionSpec("jobs", short: "j", .value("N"), help: "Transfers at once.", default: "16"),
            OptionSpec("per-host", .value("N"), help: "Connections to one host at once.", default: "6"),
            OptionSpec("connect-timeout", .value("SECS"), help: "Give up connecting after this long.", default: "10"),
            OptionSpec("stall-timeout", .value("SECS"), help: "Abort a transfer that receives nothing for this long.", default: "30"),
            OptionSpec("retries", .value("N"), help: "Retries after connection errors, stalls, truncated or partial bodies, 408, 429, 500, 502, 503 and 504.", default: "3"),
            OptionSpec("max-retry-wait", .value("SECS"), help: "Longest wait before a retry, even if Retry-After asks more.", default: "120"),
            OptionSpec("max-size", .value("SIZE"), help: "Largest body accepted (K, M, G or T suffix), decoded and as sent.", default: "200M"),
            OptionSpec("speed-limit", .value("BYTES"), help: "Abort (and retry) a transfer slower than this many bytes a second over --speed-time; 0: no limit.", default: "512"),
            OptionSpec("speed-time", .value("SECS"), help: "How long a transfer may stay below --speed-limit.", default: "30"),
            OptionSpec("max-time", .value("SECS"), help: "Abort (and retry) a request that takes longer than this in all; 0: no limit.", default: "0"),
            OptionSpec("limit-rate", .value("RATE"), help: "Receive at most RATE bytes a second in all (K, M or G suffix), shared among the running transfers; 0: no limit.", default: "0"),
            OptionSpec("wait-between", .value("SECS"), help: "Wait at least this long between the starts of two requests to one host.", default: "0"),
            OptionSpec("cookies", .value("FILE"), help: "Send cookies from FILE (Netscape/Mozilla cookies.txt format), each only to its own domain."),
            OptionSpec("cookie-jar", .value("FILE"), help: "Write the cookies known at the end of the run (those read and those servers set) to FILE."),
            OptionSpec("netrc", help: "Take user names and passwords for the listed URLs' hosts from ~/.netrc."),
            OptionSpec("netrc-file", .value("FILE"), help: "Like --netrc, from FILE instead of ~/.netrc."),
            OptionSpec("secret-header", .values("NAME"), help: "A header that carries credentials: like Authorization and Cookie, never sent after a redirect to another scheme, host or port."),
            OptionSpec("allow-unproven-end", help: "Store a body whose end cannot be proven (connection closed, no length, a format without end marker) with a possibly-truncated warning, instead of failing it."),
            OptionSpec("user-agent", .value("TEXT"), help: "User-Agent header.", default: "shoebox/\(Shoebox.version)"),
            OptionSpec("header", short: "H", .values("'NAME: VALUE'"), help: "An extra request header."),
            OptionSpec("cacert", .value("FILE"), help: "Verify HTTPS servers against the CA certificates in FILE (PEM), not the system's."),
            OptionSpec("resolve", .values("HOST:PORT:ADDRESS"), help: "Connect to ADDRESS for HOST:PORT instead of looking HOST up."),
            OptionSpec("refresh", help: "Revalidate archived URLs (If-None-Match/If-Modified-Since) instead of skipping them."),
            OptionSpec("strict", help: "Refuse to start when any list line is not an http(s) URL."),
            OptionSpec("wait", help: "Wait for another writer to finish instead of failing."),
            OptionSpec("lease", .value("SECS"), help: "With --catalog: how long this worker's claims on the shared list last unless renewed; a killed worker's URLs go to others after it.", default: "60"),
            OptionSpec("quiet", short: "q", help: "Print no progress and no summary: only failures, warnings and errors on stderr."),
            OptionSpec("verbose", short: "v", help: "Print one line per HTTP request on stderr (each redirect hop and retry): method, URL, status, bytes, time."),
            OptionSpec("dry-run", short: "n", help: "Say what would be fetched, skipped or refused, without any request and without writing to the library."),
            OptionSpec("json", help: "Print one JSON object per URL on stdout as each finishes."),
        ],
        discussion: """
        LIST is a file with one URL per line ('-' reads stdin); blank lines and lines starting with '#' are ignored.
        Originals are stored under LIBRARY/originals/YYYY/MM/DD/ by capture date, byte for byte, read-only.
        Exit status: 0 all stored/duplicate/unchanged/skipped, 1 some failed or rejected, 2 usage or unreadable list,
        3 library locked by another writer, 4 library unusable (unwritable, full disk, corrupt catalog),
        5 shared catalog unreachable, 130 interrupted.
        With --catalog postgres://…, several workers (on one machine or many) share each list: the first loads it
        into the catalog's database, each claims URLs from it until the list is finished (see 'shoebox status').
        """
    )

    /// The options that shape a request to a source server (credentials, headers, TLS, where to
    /// connect), also taken by commands that download again (`verify --repair`).
    static let requestOptionNames = ["cookies", "netrc", "netrc-file", "secret-header", "user-agent", "header", "cacert", "resolve"]
    static var requestOptions: [OptionSpec] {
        requestOptionNames.compactMap { name in spec.options.first { $0.long == name } }
    }

    public static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        var configuration = FetchRun.Configuration(library: try LibraryOption.configuration(arguments, console: console))
        configuration.options = try options(from: arguments, environment: console.environment)
        configuration.lists = arguments.positionals
        configuration.urls = arguments.values("url")
        // What a list would skip as blank or a comment is no URL here: a mistake on the command line.
        if let blank = configuration.urls.first(where: { URLListReader.parse($0, origin: "--url") == nil }) {
            throw UsageError.invalidValue(option: "url", value: URLValidator.withoutPassword(blank), expected: "a URL (blank lines and # comments belong in lists)")
        }
        configuration.strict = arguments.flag("strict")
        configuration.waitForLock = arguments.flag("wait")
        configuration.lease = try arguments.seconds("lease", default: configuration.lease, in: 3...3600)

        let quiet = arguments.flag("quiet"), verbose = arguments.flag("verbose")
        if quiet && verbose { throw UsageError.conflicting("--quiet and --verbose contradict each other: give one") }
        if arguments.flag("dry-run") { return try dryRun(configuration, arguments: arguments, console: console, quiet: quiet) }

        let reporter = FetchReporter(console: console, json: arguments.flag("json"),
                                     verbosity: quiet ? .quiet : verbose ? .verbose : .normal)
        if verbose { configuration.options.requestLog = { [reporter] in reporter.requestDidEnd($0) } }
        let run = FetchRun(configuration: configuration, observer: reporter)
        let trap = SignalTrap { _ in run.cancel() }
        // Results that cannot be printed any more (`--json | head`, full disk): stop as on Ctrl-C.
        console.whenOutputFails { run.cancel() }
        defer { withExtendedLifetime(trap) {} }
        let summary: FetchSummary
        do {
            summary = try run.run()
        } catch {
            console.clearProgress()
            return status(for: error, console: console)
        }
        let outputFailed = console.outputFailure != nil
        reporter.printSummary(summary, outputFailed: outputFailed)
        if summary.stopReason != nil { return summary.catalogUnreachable ? ExitStatus.catalogUnreachable : ExitStatus.libraryUnusable }
        // `settle` names the failure, and makes a closed pipe (`| head`) 141.
        if outputFailed { return ExitStatus.someFailed }
        if summary.cancelled { return ExitStatus.interrupted }
        return summary.allSucceeded ? ExitStatus.success : ExitStatus.someFailed
    }

    /// --dry-run: no lock, no request, nothing written (see FetchDryRun).
    private static func dryRun(_ configuration: FetchRun.Configuration, arguments: ParsedArguments,
                               console: Console, quiet: Bool) throws -> Int32 {
        let printer = DryRunPrinter(console: console, json: arguments.flag("json"), quiet: quiet)
        let cancelled = ManagedAtomicFlag()
        let trap = SignalTrap { _ in cancelled.set() }
        defer { withExtendedLifetime(trap) {} }
        do {
            try FetchDryRun.run(configuration, isCancelled: { cancelled.isSet || console.outputFailure != nil }) { printer.print($0) }
        } catch {
            return status(for: error, console: console)
        }
        printer.printSummary(interrupted: cancelled.isSet)
        if console.outputFailure != nil { return ExitStatus.someFailed }
        return cancelled.isSet ? ExitStatus.interrupted : ExitStatus.success
    }

    static func options(from arguments: ParsedArguments, environment: [String: String]) throws -> FetchOptions {
        var options = FetchOptions()
        options.jobs = try arguments.integer("jobs", default: options.jobs, in: 1...1000)
        options.perHost = try arguments.integer("per-host", default: options.perHost, in: 1...1000)
        options.connectTimeout = try arguments.seconds("connect-timeout", default: options.connectTimeout, in: 0.1...3600)
        options.stallTimeout = try arguments.seconds("stall-timeout", default: options.stallTimeout, in: 1...86400)
        options.retries = try arguments.integer("retries", default: options.retries, in: 0...100)
        options.maxRetryWait = try arguments.seconds("max-retry-wait", default: options.maxRetryWait, in: 0...86400)
        if let text = arguments.value("max-size") {
            guard let size = ByteSize.parse(text), size > 0 else {
                throw UsageError.invalidValue(option: "max-size", value: text, expected: "a size such as 500K, 200M or 2G")
            }
            options.maxSize = size
        }
        options.speedLimit = try arguments.integer("speed-limit", default: options.speedLimit, in: 0...(1 << 40))
        options.speedTime = try arguments.seconds("speed-time", default: options.speedTime, in: 1...86400)
        options.maxTime = try arguments.seconds("max-time", default: options.maxTime, in: 0...(86400 * 30))
        for name in arguments.values("secret-header") where !FetchOptions.isHeaderName(name) {
            throw UsageError.invalidValue(option: "secret-header", value: name, expected: "a header name such as X-Api-Key")
        }
        options.secretHeaders = arguments.values("secret-header")
        options.allowUnprovenEnd = arguments.flag("allow-unproven-end")
        if let agent = arguments.value("user-agent") { options.userAgent = agent }
        for header in arguments.values("header") where !FetchOptions.isHeader(header) {
            throw UsageError.invalidValue(option: "header", value: header, expected: "'Name: value'")
        }
        options.headers = arguments.values("header")
        if let given = arguments.value("cacert") {
            let file = try HomeFolderPath.expand(given, option: "cacert", environment: environment)
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw UsageError.invalidValue(option: "cacert", value: file, expected: "a readable PEM file of CA certificates")
            }
            options.caCertificates = file
        }
        for entry in arguments.values("resolve") {
            guard FetchOptions.isResolveEntry(entry) else {
                throw UsageError.invalidValue(
                    option: "resolve", value: entry,
                    expected: "HOST:PORT:ADDRESS with IP addresses (e.g. photos.example:443:192.0.2.7 or [2001:db8::7]), "
                        + "an international HOST in its xn-- form")
            }
        }
        options.resolve = arguments.values("resolve")
        options.refresh = arguments.flag("refresh")
        if let text = arguments.value("limit-rate") {
            guard let rate = ByteSize.parse(text), rate >= 0 else {
                throw UsageError.invalidValue(option: "limit-rate", value: text, expected: "bytes a second such as 500K or 2M (0: no limit)")
            }
            options.limitRate = rate
        }
        options.waitBetween = try arguments.seconds("wait-between", default: options.waitBetween, in: 0...3600)
        if let given = arguments.value("cookies") {
            let file = try HomeFolderPath.expand(given, option: "cookies", environment: environment)
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw UsageError.invalidValue(option: "cookies", value: file, expected: "a readable cookie file (Netscape format)")
            }
            options.cookieFile = file
        }
        if let given = arguments.value("cookie-jar") {
            let file = try HomeFolderPath.expand(given, option: "cookie-jar", environment: environment)
            // Cut at the last "/" by hand: NSString's deletingLastPathComponent traps on a bare "~".
            let folder = file.lastIndex(of: "/").map { String(file[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? ""
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder), isFolder.boolValue,
                  FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder) else {
                throw UsageError.invalidValue(option: "cookie-jar", value: file, expected: "a file in a writable folder")
            }
            options.cookieJar = file
        }
        options.netrc = arguments.flag("netrc")
        if let given = arguments.value("netrc-file") {
            let file = try HomeFolderPath.expand(given, option: "netrc-file", environment: environment)
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw UsageError.invalidValue(option: "netrc-file", value: file, expected: "a readable netrc file")
            }
            options.netrc = true
            options.netrcFile = file
        }
        return options
    }


    private static func status(for error: Error, console: Console) -> Int32 {
        switch error {
        case let error as FetchRunError:
            if case .invalidOption = error {
                console.error(TerminalText.oneLine("fetch: \(error)"))  // it quotes the value given
            } else {
                console.error("fetch: \(error)")
            }
            return ExitStatus.of(error)
        default:
            console.error("fetch: \(error)")
            return ExitStatus.of(error)
        }
    }
}
