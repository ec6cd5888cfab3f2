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
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Opens (creating when missing) the journal at `path` for appending.
    public init(path: String) throws {
        self.path = path
        let existed = FileManager.default.fileExists(atPath: path)
        descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalError.unwritable(path: path, detail: Self.errnoText()) }
        do {
            if existed {
                try cutTornTail()
            } else {
                try Self.syncFolder(of: path)
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    /// Appends `entries` (one line each) and fsyncs once for the whole batch.
    public func append(_ entries: [JournalEntry]) throws {
        guard !entries.isEmpty else { return }
        var batch = Data()
        for entry in entries {
            batch.append(try encoder.encode(entry))
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
    /// line before it throws `JournalError.malformed`.
    public static func read(path: String) throws -> [JournalEntry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw JournalError.unreadable(path: path, detail: error.localizedDescription)
        }
        return try decode(data, path: path)
    }

    static func decode(_ data: Data, path: String) throws -> [JournalEntry] {
        let decoder = JSONDecoder()
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        let lastLine = lines.lastIndex { !$0.isEmpty } ?? -1
        var entries: [JournalEntry] = []
        entries.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let isLast = index == lastLine  // possibly torn by a crash
            do {
                let entry = try decoder.decode(JournalEntry.self, from: Data(line))
                guard entry.isComplete else {
                    throw JournalError.malformed(path: path, line: index + 1, detail: "\(entry.kind.rawValue) without its record")
                }
                entries.append(entry)
            } catch {
                if isLast { break }
                if let error = error as? JournalError { throw error }
                throw JournalError.malformed(path: path, line: index + 1, detail: "invalid JSON")
            }
        }
        return entries
    }

    /// The hashes of every original the journal records, without decoding whole entries
    /// (verify reads this for 100,000+ originals): lines written by `append` are scanned
    /// for their `"sha256"` key; any other line is decoded. Same torn-line rules as `read`.
    public static func originalHashes(path: String) throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw JournalError.unreadable(path: path, detail: error.localizedDescription)
        }
        let prefix = Array(#"{"kind":"original","original":{"#.utf8)
        let otherKinds = [#"{"kind":"source","#, #"{"kind":"thumbnail","#, #"{"kind":"thumbnail-removed","#].map { Array($0.utf8) }
        let key = Array(#""sha256":""#.utf8)
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        let lastLine = lines.lastIndex { !$0.isEmpty } ?? -1
        var hashes = Set<String>()
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let bytes = Array(line)
            if bytes.count > 100, bytes.starts(with: prefix), bytes.last == UInt8(ascii: "}"), let sha = scan(bytes, for: key) {
                hashes.insert(sha)
            } else if bytes.last == UInt8(ascii: "}"), otherKinds.contains(where: { bytes.starts(with: $0) }) {
                continue
            } else if let entries = try? decode(Data(line) + Data([0x0A]), path: path), entries.count == 1 {
                if let original = entries[0].original { hashes.insert(original.sha256) }
            } else if index != lastLine {
                throw JournalError.malformed(path: path, line: index + 1, detail: "invalid JSON")
            }
        }
        return hashes
    }

    /// The 64 hex digits after `key` in a line, if there.
    private static func scan(_ bytes: [UInt8], for key: [UInt8]) -> String? {
        guard bytes.count >= key.count + 64 else { return nil }
        for start in 0...(bytes.count - key.count - 64) where bytes[start] == key[0] {
            guard bytes[start..<(start + key.count)].elementsEqual(key) else { continue }
            let value = bytes[(start + key.count)..<(start + key.count + 64)]
            guard value.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                  start + key.count + 64 < bytes.count, bytes[start + key.count + 64] == UInt8(ascii: "\"") else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
        return nil
    }

    // MARK: Writing

    private func writeAll(_ data: Data) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure()
                }
                offset += written
            }
        }
    }

    /// Removes a last line without its newline (a batch torn by a crash).
    private func cutTornTail() throws {
        let size = lseek(descriptor, 0, SEEK_END)
        guard size > 0 else { return }
        var keep = size
        var byte: UInt8 = 0
        while keep > 0 {
            guard pread(descriptor, &byte, 1, keep - 1) == 1 else { throw failure() }
            if byte == 0x0A { break }
            keep -= 1
        }
        guard keep < size else { return }
        guard ftruncate(descriptor, keep) == 0, fsync(descriptor) == 0 else { throw failure() }
    }

    private func failure() -> JournalError {
        errno == ENOSPC || errno == EDQUOT
            ? .diskFull(path: path) : .unwritable(path: path, detail: Self.errnoText())
    }

    /// Makes the new file's directory entry durable.
    private static func syncFolder(of path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw JournalError.unwritable(path: path, detail: errnoText()) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw JournalError.unwritable(path: path, detail: errnoText()) }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
