#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where a command prints: data to stdout, diagnostics to stderr.
/// Knows whether stderr is a terminal (progress lines) and whether colour is allowed.
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private var stdoutFailure: Int32?
    private var onOutputFailure: (@Sendable () -> Void)?
    public let stderrIsTerminal: Bool
    public let useColor: Bool
    /// Whether stdout is a terminal (a person reads the data, not a program).
    public let stdoutIsTerminal: Bool
    /// Colour in the data on stdout: a terminal, NO_COLOR unset, TERM not dumb.
    public let stdoutColor: Bool
    /// TERM=dumb: no escape sequences at all, lines are cleared by overwriting them with spaces.
    private let dumbTerminal: Bool
    private var progressWidth = 0
    public let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        dumbTerminal = environment["TERM"] == "dumb"
        useColor = stderrIsTerminal && !noColor && !dumbTerminal
        stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        stdoutColor = stdoutIsTerminal && !noColor && !dumbTerminal
    }

    /// Writes one line of data to stdout; after a failed write (closed pipe, full disk)
    /// nothing more is written there, and `outputFailure` says why.
    public func out(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Writes data to stdout as it is (no line break added: NUL-separated output, or many
    /// lines gathered into one write); after a failed write, as `out`, nothing more.
    public func outText(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// The errno of the first failed write to stdout (EPIPE: the reader went away).
    public var outputFailure: Int32? {
        lock.withLock { stdoutFailure }
    }

    /// Called once, on the first failed write to stdout (a command stops work whose results cannot be printed).
    public func whenOutputFails(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { onOutputFailure = handler }
    }

    /// Writes one diagnostic line to stderr, prefixed with "shoebox: ".
    public func error(_ message: String) {
        write("shoebox: " + TerminalText.visible(message) + "\n", to: STDERR_FILENO)
    }

    /// Writes raw text to stderr (summaries, progress).
    public func note(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Replaces the current terminal line on stderr; does nothing off a terminal.
    public func progress(_ line: String) {
        guard stderrIsTerminal else { return }
        write(clearing() + line, to: STDERR_FILENO)
        lock.withLock { progressWidth = line.count }
    }

    /// Clears the progress line before ordinary output.
    public func clearProgress() {
        guard stderrIsTerminal else { return }
        write(clearing(), to: STDERR_FILENO)
        lock.withLock { progressWidth = 0 }
    }

    private func clearing() -> String {
        guard dumbTerminal else { return "\r\u{1B}[2K" }
        let width = lock.withLock { progressWidth }
        return "\r" + String(repeating: " ", count: width) + "\r"
    }

    /// Wraps text in an ANSI colour when colour is allowed.
    public func colored(_ text: String, _ code: String) -> String {
        useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    private func write(_ text: String, to fd: Int32) {
        lock.lock()
        guard fd != STDOUT_FILENO || stdoutFailure == nil else { return lock.unlock() }
        var bytes = Array(text.utf8)
        var offset = 0
        var failure: Int32?
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            offset += written
        }
        var handler: (@Sendable () -> Void)?
        if let failure, fd == STDOUT_FILENO {
            stdoutFailure = failure
            handler = onOutputFailure
        }
        lock.unlock()
        handler?()
    }
}
