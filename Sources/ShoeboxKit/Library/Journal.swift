import Foundation

/// The append-only journal of the library (`LIBRARY/journal.jsonl`, JSON Lines):
/// every outcome that changes the library is appended, and made durable, before
/// the matching catalog commit, so `shoebox reindex` can rebuild the catalog from
/// `originals/` plus this file.
///
/// A crash can leave a torn last line; `read` ignores it, and opening the journal
/// for writing cuts it off so new entries start on a line of their own. A failed
/// append (e.g. disk full) is undone: the file is truncated back to where it was.
/// Thread safety: `append` may be called from any thread (serialised by a lock).
public final class Journal: @unchecked Sendable {
    public static let fileName = "journal.jsonl"

    public let path: String
    private let descriptor: Int32
    private let lock = NSLock()

    /// Opens (creating when missing) the journal at `path` for appending.
    public init(path: String) throws {
        self.path = path
        let existed = FileManager.default.fileExists(atPath: path)
        descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalError.unwritable(path: path, detail: Self.errnoText()) }
        // A throw from here on still runs deinit (every property is set), which closes the file.
        if existed {
            try cutTornTail()
        } else if let code = FolderPath.sync(FolderPath.containing(path)) {
            throw JournalError.unwritable(path: path, detail: String(cString: strerror(code)))
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends `entries` (one line each) and fsyncs once for the whole batch.
    public func append(_ entries: [JournalEntry]) throws {
        guard !entries.isEmpty else { return }
        var batch: [UInt8] = []
        for entry in entries {
            batch += JournalLine.encode(entry)
            batch.append(0x0A)
        }
        lock.lock()
        defer { lock.unlock() }
        let start = lseek(descriptor, 0, SEEK_END)
        guard start >= 0 else { throw JournalError.unwritable(path: path, detail: Self.errnoText()) }
        do {
            try writeAll(batch)
            guard fsync(descriptor) == 0 else { throw failure() }
        } catch {
            _ = ftruncate(descriptor, start)
            _ = fsync(descriptor)
            throw error
        }
    }

    /// Appends one batch of new originals, then the sources naming them (one fsync).
    public func append(originals: [OriginalRecord], sources: [SourceRecord]) throws {
        try append(originals.map(JournalEntry.originalStored) + sources.map(JournalEntry.sourceRecorded))
    }

    /// Every complete entry of the journal at `path`, oldest first; `[]` when there is
    /// no journal. A torn last line (cut short or garbled by a crash) is ignored; a bad
    /// line before it throws `JournalError.malformed`. The file is streamed: a line longer
    /// than `JournalLineReader.maxLineLength` is not loaded (it is a bad line).
    public static func read(path: String) throws -> [JournalEntry] {
        try decode(JournalLineReader(path: path), salvage: false).entries
    }

    /// Like `read`, but skips damaged lines anywhere instead of failing, and says which
    /// (1-based line numbers): `reindex` recovers what it can from a damaged journal.
    /// Reading ends early, with what was read so far, once `shouldStop` says so (Ctrl-C).
    public static func readSalvaging(
        path: String, shouldStop: () -> Bool = { false }
    ) throws -> (entries: [JournalEntry], damagedLines: [Int]) {
        try decode(JournalLineReader(path: path), salvage: true, shouldStop: shouldStop)
    }

    private static func contents(_ path: String) throws -> Data {
        guard FileManager.default.fileExists(atPath: path) else { return Data() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw JournalError.unreadable(path: path, detail: error.localizedDescription)
        }
    }

    /// Ends `forEachLine` early.
    private struct Stopped: Error {}

    static func decode(
        _ reader: JournalLineReader, salvage: Bool, shouldStop: () -> Bool = { false }
    ) throws -> (entries: [JournalEntry], damagedLines: [Int]) {
        var damaged: [Int] = []
        var entries: [JournalEntry] = []
        // The latest non-empty line, when it could not be read: damage once another line
        // follows it, ignored when it proves to be the last (possibly torn by a crash).
        var failure: (line: Int, error: JournalError)?
        func settle() throws {
            guard let (line, error) = failure else { return }
            failure = nil
            guard salvage else { throw error }
            damaged.append(line)
        }
        let decoder = JSONDecoder()
        let path = reader.path
        do {
            try reader.forEachLine { number, content in
                if number % 4096 == 0, shouldStop() { throw Stopped() }
                guard case .text(let line) = content else {
                    try settle()
                    failure = (number, .malformed(path: path, line: number, detail: "longer than "
                        + ByteSize.format(Int64(reader.maxLineLength)) + ", more than any entry; not loaded"))
                    return
                }
                guard !line.isEmpty else { return }
                try settle()
                guard let entry = try? decoder.decode(JournalEntry.self, from: Data(line)) else {
                    failure = (number, .malformed(path: path, line: number, detail: "invalid JSON"))
                    return
                }
                guard entry.isComplete else {
                    failure = (number, .malformed(path: path, line: number, detail: "\(entry.kind.rawValue) without its record"))
                    return
                }
                entries.append(entry)
            }
        } catch is Stopped {}  // what was read so far
        return (entries, damaged)
    }

    /// The hashes of every original the journal records, without decoding whole entries
    /// (verify reads this for 100,000+ originals): lines written by `append` are checked for
    /// balanced brackets and scanned for their `"sha256"` key; any other line is decoded.
    /// The file is streamed (`JournalLineReader`): memory stays bounded whatever its size, and
    /// a line longer than `JournalLineReader.maxLineLength` is not loaded but listed in
    /// `overLongLines` (and in `damagedLines`). A torn last line is ignored, as by `read`;
    /// damaged lines before it are listed (1-based).
    public static func scanOriginalHashes(path: String) throws -> (hashes: Set<String>, damagedLines: [Int], overLongLines: [Int]) {
        try scanOriginalHashes(JournalLineReader(path: path))
    }

    static func scanOriginalHashes(_ reader: JournalLineReader) throws -> (hashes: Set<String>, damagedLines: [Int], overLongLines: [Int]) {
        let prefix = Array(#"{"kind":"original","original":{"#.utf8)
        let otherKinds = [#"{"kind":"source","#, #"{"kind":"thumbnail","#, #"{"kind":"thumbnail-removed","#].map { Array($0.utf8) }
        let key = Array(#""sha256":""#.utf8)
        var hashes = Set<String>()
        var damaged: [Int] = []
        var overLong: [Int] = []
        var lastLine = 0
        let decoder = JSONDecoder()
        try reader.forEachLine { number, content in
            guard case .text(let line) = content else {
                lastLine = number
                overLong.append(number)
                damaged.append(number)
                return
            }
            guard !line.isEmpty else { return }
            lastLine = number
            let wellFormed = isBalanced(line)
            if wellFormed, line.count > 100, starts(line, with: prefix), let sha = hash(in: line, after: key) {
                hashes.insert(sha)
            } else if wellFormed, otherKinds.contains(where: { starts(line, with: $0) }) {
                return
            } else if let entry = try? decoder.decode(JournalEntry.self, from: Data(line)), entry.isComplete {
                if let original = entry.original { hashes.insert(original.sha256) }
            } else {
                damaged.append(number)
            }
        }
        // The last line may be torn by a crash, with or without its newline, as `read` takes it.
        return (hashes, damaged.filter { $0 != lastLine }, overLong.filter { $0 != lastLine })
    }

    /// Whether a line is one object whose braces and brackets (outside strings) pair up, so a
    /// line cut short or with bytes dropped or added around them is not taken at face value.
    private static func isBalanced(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard line.first == UInt8(ascii: "{"), line.last == UInt8(ascii: "}") else { return false }
        var depth = 0
        var inString = false
        var escaped = false
        for (index, byte) in line.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x7B, 0x5B: depth += 1
            case 0x7D, 0x5D:
                depth -= 1
                if depth == 0 && index != line.count - 1 { return false }
            default: break
            }
            if depth < 0 { return false }
        }
        return depth == 0 && !inString
    }

    private static func starts(_ line: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
        line.count >= prefix.count && memcmp(line.baseAddress!, prefix, prefix.count) == 0
    }

    /// The 64 lower-case hex digits after `key` in a line, if there.
    private static func hash(in line: UnsafeBufferPointer<UInt8>, after key: [UInt8]) -> String? {
        guard let base = line.baseAddress else { return nil }
        var position = 0
        var found: Int?
        while found == nil, position + key.count + 64 < line.count {
            guard let quote = memchr(base + position, Int32(key[0]), line.count - position) else { return nil }
            let index = UnsafePointer<UInt8>(quote.assumingMemoryBound(to: UInt8.self)) - base
            if index + key.count + 64 < line.count, memcmp(base + index, key, key.count) == 0 { found = index + key.count }
            position = index + 1
        }
        guard let offset = found, line[offset + 64] == UInt8(ascii: "\"") else { return nil }
        let value = UnsafeBufferPointer(rebasing: line[offset..<(offset + 64)])
        guard value.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        return String(decoding: value, as: UTF8.self)
    }

    /// Replaces the journal at `path` with a copy that lacks `lines` (1-based, as
    /// `readSalvaging` lists damaged ones), every other byte kept. The old file stays as
    /// `backup` (a hard link, made first): a crash at any point leaves one whole journal in place.
    public static func removeLines(_ lines: Set<Int>, path: String, keepingOldAs backup: String) throws {
        let data = try contents(path)
        var kept = Data()
        kept.reserveCapacity(data.count)
        let all = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in all.enumerated() where !line.isEmpty && !lines.contains(index + 1) {
            // A last line without its newline is kept (newline added) only when it is a whole entry.
            if index == all.count - 1, (try? JSONDecoder().decode(JournalEntry.self, from: Data(line)))?.isComplete != true {
                continue
            }
            kept.append(contentsOf: line)
            kept.append(0x0A)
        }
        let rewrite = path + ".rewrite"
        unlink(rewrite)
        let descriptor = open(rewrite, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalError.unwritable(path: rewrite, detail: errnoText()) }
        let written = kept.withUnsafeBytes { POSIXWrite.all($0, to: descriptor) } && fsync(descriptor) == 0
        let code = errno
        close(descriptor)
        guard written else {
            unlink(rewrite)
            throw code == ENOSPC || code == EDQUOT ? JournalError.diskFull(path: path)
                : JournalError.unwritable(path: rewrite, detail: String(cString: strerror(code)))
        }
        guard link(path, backup) == 0, rename(rewrite, path) == 0 else {
            let detail = errnoText()
            unlink(rewrite)
            throw JournalError.unwritable(path: path, detail: detail)
        }
        _ = FolderPath.sync(FolderPath.containing(path))
    }

    // MARK: Writing

    private func writeAll(_ data: [UInt8]) throws {
        guard data.withUnsafeBytes({ POSIXWrite.all($0, to: descriptor) }) else { throw failure() }
    }

    /// Removes a last line without its newline (a batch torn by a crash). The file is read
    /// backwards in blocks of `tailBlockSize` to find the last newline: a torn tail of many
    /// megabytes costs a few reads, not one per byte, while the library lock is held.
    private func cutTornTail() throws {
        let size = lseek(descriptor, 0, SEEK_END)
        guard size > 0 else { return }
        var block = [UInt8](repeating: 0, count: Self.tailBlockSize)
        var keep: off_t = 0  // nothing whole when no newline is found
        var end = size
        search: while end > 0 {
            let start = max(0, end - off_t(block.count))
            let wanted = Int(end - start)
            var got = 0
            while got < wanted {
                let count = block.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + got, wanted - got, start + off_t(got)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw failure() }
                got += count
            }
            let newline: Int? = block.withUnsafeBufferPointer { bytes in
                var index = wanted - 1
                while index >= 0 && bytes[index] != 0x0A { index -= 1 }
                return index >= 0 ? index : nil
            }
            if let newline {
                keep = start + off_t(newline) + 1
                break search
            }
            end = start
        }
        guard keep < size else { return }
        guard ftruncate(descriptor, keep) == 0, fsync(descriptor) == 0 else { throw failure() }
    }

    /// How much of the journal's end `cutTornTail` reads at once.
    static let tailBlockSize = 64 << 10

    private func failure() -> JournalError {
        errno == ENOSPC || errno == EDQUOT
            ? .diskFull(path: path) : .unwritable(path: path, detail: Self.errnoText())
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
