import Foundation

/// Streams URLs out of list files (or stdin for "-"), one line at a time, so
/// memory does not grow with the list. Blank lines and `#` comments are
/// skipped; surrounding white space, CRLF line ends and a leading byte order
/// mark are dropped.
public final class URLListReader {
    public enum Entry: Equatable {
        case url(FetchItem)
        /// A line that is not an absolute http(s) URL: "FILE:LINE: reason".
        case invalid(origin: String, line: String, reason: String)
    }

    public enum ReadError: Error, CustomStringConvertible, Equatable {
        case cannotOpen(path: String, reason: String)
        case readFailed(path: String, reason: String)
        case notText(path: String, what: String)

        public var description: String {
            switch self {
            case .notText(let path, let what):
                return "\(path) is \(what), not a text list of URLs; to fetch a single URL, give it with --url"
            case .cannotOpen(let path, let reason):
                return "cannot open URL list \(path.contains("://") ? URLValidator.withoutPassword(path) : path): \(reason); check the path ('-' reads the list from stdin)"
            case .readFailed(let path, let reason):
                return "cannot read URL list \(path): \(reason); nothing after the last line read was fetched"
            }
        }
    }

    private var pending: [String]
    private let shownNames: [String: String]
    private var current: LineReader?
    private var currentName = ""
    private var lineNumber = 0

    /// `paths`: list files, "-" for stdin. `shownNames`: the name to report for a path
    /// in FILE:LINE origins when it is not the path itself (stdin spooled to a file).
    public init(paths: [String], shownNames: [String: String] = [:]) {
        pending = paths
        self.shownNames = shownNames
    }

    /// Checks up front that every named list can be opened (exit status 2 before any work).
    /// A stream (`isStream`) is only checked for access: what is read of it is gone, so its
    /// content is checked when the run reads it.
    public static func checkReadable(_ paths: [String]) throws {
        for path in paths where path != "-" {
            guard access(path, R_OK) == 0 else {
                throw ReadError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw ReadError.cannotOpen(path: path, reason: "is a folder, not a list file")
            }
            if isStream(path) { continue }
            if let what = binaryContent(path) { throw ReadError.notText(path: path, what: what) }
        }
    }

    /// How messages name a list: as given, stdin ("-") as `<stdin>`.
    static func shownName(_ list: String) -> String {
        list == "-" ? "<stdin>" : list
    }

    /// Whether a list can be read only once: stdin ("-"), a pipe (`<(cmd)`, `/dev/stdin`
    /// fed by a pipe), a FIFO or a socket. Such a list is read by the run alone, never
    /// ahead of it. A device (/dev/zero) is checked as a file is, and refused.
    public static func isStream(_ path: String) -> Bool {
        if path == "-" { return true }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFSOCK
    }

    /// What a file's first 4 KiB say it is when it is no text list: an image, or
    /// data with many NUL bytes (binary, or UTF-16 text). A photo given as the
    /// list would otherwise make thousands of "not a URL" lines. A stray NUL or
    /// a byte that is not UTF-8 (a Latin-1 comment, say) is left to the line
    /// checks. Nil for text, or a file that cannot be read here.
    static func binaryContent(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: binarySampleSize) else { return nil }
        return binaryContent(head: [UInt8](head))
    }

    static let binarySampleSize = 4096

    static func binaryContent<Bytes: Collection<UInt8>>(head bytes: Bytes) -> String? {
        guard !bytes.isEmpty else { return nil }
        if let format = FormatSniffer.sniff(bytes) { return "a \(format.rawValue.uppercased()) image" }
        let nuls = bytes.reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
        return nuls >= 16 && nuls * 100 >= bytes.count ? "binary data (or UTF-16 text)" : nil
    }

    /// The next URL or invalid line, or nil at the end of the last list.
    public func next() throws -> Entry? {
        while true {
            if current == nil {
                guard !pending.isEmpty else { return nil }
                currentName = pending.removeFirst()
                current = try LineReader(path: currentName)
                lineNumber = 0
                if Self.isStream(currentName) { try checkStreamIsText(current!, named: currentName) }
            }
            guard let reader = current, let line = try reader.nextLine() else {
                current = nil
                continue
            }
            lineNumber += 1
            let shown = shownNames[currentName] ?? Self.shownName(currentName)
            let origin = "\(shown):\(lineNumber)"
            switch line {
            case .tooLong(let start, let bytes):
                return .invalid(origin: origin, line: URLValidator.withoutPassword(start + "…", shortened: true),
                                reason: "a line of \(bytes) bytes, longer than the \(reader.maxLineLength) a URL may have here; is this a list of URLs?")
            case .text(let text):
                if let entry = Self.parse(lineNumber == 1 ? Self.droppingByteOrderMark(text) : text, origin: origin) {
                    return entry
                }
            }
        }
    }

    /// A stream cannot be checked before the run as files are (nothing read can be
    /// read again): its first read is checked when the run comes to it.
    private func checkStreamIsText(_ reader: LineReader, named name: String) throws {
        if let what = Self.binaryContent(head: try reader.firstBytes(limit: Self.binarySampleSize)) {
            throw ReadError.notText(path: Self.shownName(name), what: what)
        }
    }

    /// Editors on Windows start UTF-8 files with a byte order mark (EF BB BF): not part of the first URL.
    static func droppingByteOrderMark(_ line: String) -> String {
        line.unicodeScalars.first == "\u{FEFF}" ? String(line.unicodeScalars.dropFirst()) : line
    }

    /// One list line to an entry; nil for blank lines and comments.
    public static func parse(_ rawLine: String, origin: String) -> Entry? {
        let line = rawLine.trimmingWhitespace()
        if line.isEmpty || line.hasPrefix("#") { return nil }
        do {
            let validated = try URLValidator.validated(line)
            return .url(FetchItem(url: line, origin: origin, identity: validated.identity, recordedURL: validated.recorded))
        } catch {
            return .invalid(origin: origin, line: line, reason: "\(error)")
        }
    }
}
