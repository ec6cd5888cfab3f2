import Foundation

/// `shoebox export --to DIR [filters]`: copies (or hard-links) the originals a query selects
/// into a folder, for handing a set to someone, with a manifest: `manifest.sha256` (one
/// `HASH  PATH` line each, for `sha256sum -c`) and `manifest.jsonl` (each original's catalog
/// record and the URLs it came from).
///
/// Each original goes to `DIR/YYYY/MM/DD/NAME.EXT` (its library path without `originals/`),
/// copied through a temporary name, hashed as it is read and put in place only when its
/// SHA-256 is the catalogued one (a damaged original is reported, never exported), synced,
/// with its file time kept. A file already there with the same bytes is left as it is (an
/// export run again adds what is new); one with other bytes is never replaced. The manifests
/// keep the entries of earlier exports into the folder and are replaced atomically.
public final class ExportRun: @unchecked Sendable {
    public let configuration: LibraryConfiguration
    public let query: OriginalQuery
    public let folder: String
    public let link: Bool
    public let limit: Int?
    /// Each original's outcome, in the query's order.
    public var onOutcome: ((ExportOutcome) -> Void)?
    private let cancelFlag = ManagedAtomicFlag()

    public init(configuration: LibraryConfiguration, query: OriginalQuery, folder: String, link: Bool = false, limit: Int? = nil) {
        self.configuration = configuration
        self.query = query
        self.folder = folder
        self.link = link
        self.limit = limit
    }

    public func cancel() { cancelFlag.set() }

    public static let checksumManifest = "manifest.sha256"
    public static let recordManifest = "manifest.jsonl"

    /// Counts by kind, and the bytes exported.
    public struct Summary: Sendable, Equatable {
        public var exported = 0
        public var unchanged = 0
        public var failed = 0
        public var bytes: Int64 = 0
        public var cancelled = false
        /// With a lens filter: the originals matching the other filters whose lens is not known
        /// (catalogued before lenses were), counted up to `OriginalQuery.lensNotJudgedBound`.
        public var lensNotJudged = 0
    }

    public func run() throws -> Summary {
        let library = try Library.openForReading(configuration)
        let store = try library.store()
        if link, !(store is LocalOriginalStore) { throw ExportError.linkNeedsLibraryFolder(store: store.displayName) }
        try checkOutsideLibrary()
        if let code = FolderPath.create(folder) { throw ExportError.cannotWrite(folder: folder, reason: String(cString: strerror(code))) }
        let hold = try holdFolder()
        defer { close(hold) }
        Self.removeLeftovers(in: folder)
        let catalog = try library.openCatalog(readOnly: true, checkIntegrity: false)
        defer { catalog.close() }
        let lookups = try library.openCatalog(readOnly: true, checkIntegrity: false)
        defer { lookups.close() }
        var summary = Summary()
        var checksums = Self.readLines(folder + "/" + Self.checksumManifest) { line in
            line.count > 66 ? String(line.dropFirst(66)) : nil
        }
        var records = Self.readLines(folder + "/" + Self.recordManifest) { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String
        }
        try catalog.originals(matching: query, limit: limit) { original in
            guard !cancelFlag.isSet else { return false }
            let outcome = export(original, store: store)
            switch outcome.kind {
            case .exported:
                summary.exported += 1
                summary.bytes += original.bytes
            case .unchanged: summary.unchanged += 1
            case .failed: summary.failed += 1
            }
            if outcome.kind != .failed {
                checksums[outcome.target] = original.sha256 + "  " + outcome.target
                records[outcome.target] = Self.record(original, target: outcome.target,
                                                      sources: (try? lookups.sourceVersions(sha256: original.sha256)) ?? [])
            }
            onOutcome?(outcome)
            return true
        }
        summary.cancelled = cancelFlag.isSet
        if let unjudged = query.lensNotJudged, !summary.cancelled {
            summary.lensNotJudged = try catalog.countOriginals(matching: unjudged, upTo: OriginalQuery.lensNotJudgedBound)
        }
        try Self.writeManifest(folder + "/" + Self.checksumManifest, checksums)
        try Self.writeManifest(folder + "/" + Self.recordManifest, records)
        return summary
    }

    /// Refuses a folder that is the library or inside it, before anything is made: the folder
    /// is resolved from its deepest part that exists (links followed).
    private func checkOutsideLibrary() throws {
        guard let root = realpath(configuration.layout.root, nil) else { return }
        defer { free(root) }
        var existing = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        var rest: [String] = []
        var resolved: String?
        while resolved == nil {
            if let real = realpath(existing, nil) {
                resolved = String(cString: real)
                free(real)
            } else {
                let parent = FolderPath.containing(existing)
                guard parent != existing else { return }
                rest.insert(String(existing.split(separator: "/").last ?? ""), at: 0)
                existing = parent
            }
        }
        let inside = ([resolved!] + rest).joined(separator: "/"), library = String(cString: root)
        if inside == library || inside.hasPrefix(library + "/") { throw ExportError.insideLibrary(folder: folder, library: configuration.layout.root) }
    }

    /// One export into a folder at a time (a lock on the folder itself, nothing written into
    /// it): two would race on the manifests, and the leftovers removed at the start could be
    /// the other's files in progress. Released when the descriptor closes, or the process ends.
    private func holdFolder() throws -> Int32 {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ExportError.cannotWrite(folder: folder, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw ExportError.folderBusy(folder: folder) }
            throw ExportError.cannotWrite(folder: folder, reason: String(cString: strerror(code)))
        }
        return fd
    }

    static let partialPrefix = ".shoebox-export-", partialSuffix = ".part"

    /// Removes the temporary files an export killed mid-copy left (`partialPrefix`…`partialSuffix`,
    /// regular files only) anywhere under `folder`, never following a symbolic link.
    static func removeLeftovers(in folder: String) {
        let prefix = Array(partialPrefix.utf8), suffix = Array(partialSuffix.utf8)
        DirectoryWalker.walk(folder) { entry in
            let name = entry.relativePath.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
            guard (entry.info.st_mode & S_IFMT) == S_IFREG, name.starts(with: prefix), name.reversed().starts(with: suffix.reversed()) else { return }
            _ = DirectoryWalker.withCString(Array(folder.utf8) + [UInt8(ascii: "/")] + entry.relativePath) { unlink($0) }
        }
    }

    /// Where `original` goes in the folder: its library path without `originals/`.
    static func target(of original: OriginalRecord) -> String {
        let prefix = LibraryLayout.originalsFolder + "/"
        return original.path.hasPrefix(prefix) ? String(original.path.dropFirst(prefix.count)) : original.path
    }

    private func export(_ original: OriginalRecord, store: OriginalStore) -> ExportOutcome {
        let target = Self.target(of: original)
        func outcome(_ kind: ExportOutcome.Kind, _ reason: String? = nil) -> ExportOutcome {
            ExportOutcome(kind: kind, original: original, target: target, reason: reason)
        }
        guard LibraryLayout.isPlainOriginalPath(original.path) else { return outcome(.failed, "not a plain library path; not followed") }
        let destination = folder + "/" + target
        var present = stat()
        if lstat(destination, &present) == 0 {
            let same = (present.st_mode & S_IFMT) == S_IFREG && Int64(present.st_size) == original.bytes
                && (try? SHA256Hasher.hashFile(atPath: destination).sha256) == original.sha256
            return same ? outcome(.unchanged) : outcome(.failed, "\(destination) holds other bytes; not replaced")
        }
        if let code = FolderPath.create(FolderPath.containing(destination)) {
            return outcome(.failed, "cannot make its folder: \(String(cString: strerror(code)))")
        }
        if link {
            let source = configuration.layout.absolute(original.path)
            guard (try? SHA256Hasher.hashFile(atPath: source).sha256) == original.sha256 else {
                return outcome(.failed, "the library's copy is not the catalogued bytes; run shoebox verify --repair")
            }
            guard Glibc.link(source, destination) == 0 else {
                let reason = errno == EXDEV ? "on another file system than the library: it cannot be linked (export without --link)"
                    : String(cString: strerror(errno))
                return outcome(.failed, reason)
            }
            return outcome(.exported)
        }
        let partial = FolderPath.containing(destination) + "/" + Self.partialPrefix + UUID().uuidString.lowercased() + Self.partialSuffix
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return outcome(.failed, String(cString: strerror(errno))) }
        var keep = false
        defer {
            close(fd)
            if !keep { unlink(partial) }
        }
        let hasher = SHA256Hasher()
        var written: Int64 = 0
        do {
            try store.stream(path: original.path) { chunk in
                hasher.update(chunk)
                guard POSIXWrite.all(chunk, to: fd) else { throw POSIXFileError(path: destination, operation: "write", code: errno) }
                written += Int64(chunk.count)
            }
        } catch {
            return outcome(.failed, "\(error)")
        }
        guard written == original.bytes, hasher.finalizeHex() == original.sha256 else {
            return outcome(.failed, "the library's copy is not the catalogued bytes; run shoebox verify --repair")
        }
        if let modified = try? store.info(path: original.path)?.modified {
            StagingFile.setModified(fd, time_t(modified))
        }
        guard fsync(fd) == 0 else { return outcome(.failed, "sync: \(String(cString: strerror(errno)))") }
        guard rename(partial, destination) == 0 else { return outcome(.failed, String(cString: strerror(errno))) }
        keep = true
        return outcome(.exported)
    }

    /// One `manifest.jsonl` line: the record's keys and where it came from.
    static func record(_ original: OriginalRecord, target: String, sources: [SourceVersion]) -> String {
        var object: [String: Any] = [
            "path": target, "sha256": original.sha256, "bytes": original.bytes, "content_type": original.contentType,
            "library_path": original.path, "sources": sources.map { ["url": $0.url, "first_fetched_at": $0.firstFetchedAt] },
        ]
        if let takenAt = original.takenAt { object["taken_at"] = takenAt }
        if let make = original.make { object["make"] = make }
        if let model = original.model { object["model"] = model }
        if let lens = original.namedLens { object["lens"] = lens }
        if let width = original.width, let height = original.height { object["width"] = width; object["height"] = height }
        if let latitude = original.gpsLatitude, let longitude = original.gpsLongitude {
            object["gps"] = ["latitude": latitude, "longitude": longitude]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A manifest's lines by the path each names (`key`), for one written before.
    private static func readLines(_ path: String, key: (String) -> String?) -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var lines: [String: String] = [:]
        for line in text.split(separator: "\n").map(String.init) { if let name = key(line) { lines[name] = line } }
        return lines
    }

    /// Writes the lines in path order through a temporary file, synced, then renamed over.
    private static func writeManifest(_ path: String, _ lines: [String: String]) throws {
        let text = lines.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { $0.value + "\n" }.joined()
        do {
            try AtomicFileWriter.write(Array(text.utf8), to: path, temporaryPrefix: ".shoebox-manifest-")
        } catch {
            throw ExportError.cannotWrite(folder: FolderPath.containing(path), reason: "\(error)")
        }
    }
}
