import Foundation

/// `shoebox reindex`: rebuilds `catalog.sqlite` from the files under `originals/`
/// and the journal, so that losing the catalog never means losing the archive.
///
/// Every file is hashed; a file whose hash has a journaled record gets that record
/// back (with its sources, ETags, metadata and thumbnails); a file the journal does
/// not know is recorded from its own bytes and EXIF, and journaled. The new catalog
/// is built in `.tmp/` and moved into place only when complete; the previous file,
/// if any, is kept beside it (`catalog.sqlite.corrupt-…` or `catalog.sqlite.replaced-…`).
/// A healthy catalog is only replaced with `force`. Takes the library lock exclusively.
/// `cancel` (Ctrl-C, SIGTERM) stops the run before the new catalog is put in place:
/// `run` then throws `VerifyError.interrupted` and the previous catalog is left as it was.
public struct LibraryReindexer: Sendable {
    public let configuration: LibraryConfiguration
    public var layout: LibraryLayout { configuration.layout }
    public var force: Bool
    public var jobs: Int
    public var readMetadata: MetadataReading?
    /// Wait for the lock's holder instead of failing with `LibraryError.locked`.
    public var waitForLock = false
    private let cancellation = ManagedAtomicFlag()

    public init(layout: LibraryLayout, force: Bool = false, jobs: Int? = nil, readMetadata: MetadataReading? = LibraryVerifier.defaultMetadataReader) {
        self.init(configuration: LibraryConfiguration(layout: layout), force: force, jobs: jobs, readMetadata: readMetadata)
    }

    public init(configuration: LibraryConfiguration, force: Bool = false, jobs: Int? = nil,
                readMetadata: MetadataReading? = LibraryVerifier.defaultMetadataReader) {
        self.configuration = configuration
        self.force = force
        self.jobs = jobs ?? ParallelLoop.defaultJobs
        self.readMetadata = readMetadata
    }

    /// Asks a running `run` to stop (from any thread): it ends at its next step, before the
    /// new catalog replaces the previous one, with `VerifyError.interrupted`.
    public func cancel() { cancellation.set() }

    public var isCancelled: Bool { cancellation.isSet }

    func stopIfCancelled() throws {
        if cancellation.isSet { throw VerifyError.interrupted(catalog: layout.catalog) }
    }

    public func run() throws -> ReindexReport {
        let start = Date()
        if configuration.catalog.isShared { return try runOnSharedCatalog(start: start) }
        try LibraryVerifier.requireLibrary(configuration)
        let cancellation = cancellation
        let library = try Library.openForWriting(
            configuration, creating: true, waiting: Library.Waiting(wait: waitForLock, isCancelled: { cancellation.isSet }))
        defer { withExtendedLifetime(library) {} }
        var report = ReindexReport()
        report.previousCatalogState = try assessCurrentCatalog(library)
        let store = try library.store()
        let journal = try Journal.readSalvaging(path: layout.journal, shouldStop: { cancellation.isSet })
        try stopIfCancelled()
        report.damagedJournalLines = journal.damagedLines
        if !journal.damagedLines.isEmpty {
            // Left in place, they would make every verify fail for good.
            let backup = Self.unusedName(layout.journal + ".damaged-" + Self.stamp())
            try Journal.removeLines(Set(journal.damagedLines), path: layout.journal, keepingOldAs: backup)
            report.damagedJournalKept = (backup as NSString).lastPathComponent
        }
        var entries = journal.entries
        if report.previousCatalogState == "replaced" {
            let missing = try healthyCatalogEntriesMissing(library, from: JournalState(entries))
            if !missing.isEmpty { try library.openChangeLog()?.append(missing) }
            report.entriesFromCatalog = missing.count
            entries += missing
        }
        let state = JournalState(entries)
        try recoverStaged(store: store, state: state, report: &report)
        try stopIfCancelled()

        // Originals in an object store: the bucket's listing, hashes from the objects' metadata.
        let remote = store is LocalOriginalStore ? nil : store
        let listing = try remote.map(Self.listing(of:)) ?? LibraryFile.scan(LibraryLayout.originalsFolder, in: layout)
        let found = listing.files
        report.unreadableFolders = listing.unreadableFolders
        report.nonUTF8Names = found.filter { !$0.hasUTF8Name }.map(\.path)
        report.notRegularFiles = found.filter { $0.hasUTF8Name && !$0.isRegular }.map(\.path)
        let files = found.filter { $0.hasUTF8Name && $0.isRegular }
        let hashes = try hash(files, remote: remote, report: &report)
        try stopIfCancelled()  // the hashes are not all there
        let (originals, unjournaled) = try chooseOriginals(files, hashes: hashes, state: state, remote: remote, report: &report)
        try stopIfCancelled()
        if !unjournaled.isEmpty {
            try library.openChangeLog()?.append(unjournaled.map(JournalEntry.originalStored))
        }
        let known = Set(originals.map(\.sha256))
        let sources = state.sources.values.filter { $0.sha256.map(known.contains) ?? true }.sorted { $0.url < $1.url }
        report.sources = sources.count
        report.sourcesDropped = state.sources.count - sources.count
        // Thumbnails are beside the originals: files here, objects in the bucket (listed once).
        let storedThumbnails = try remote?.sizes(under: ThumbnailLayout.folder)
        let thumbnails = state.thumbnails.values
            .filter { thumbnail in
                known.contains(thumbnail.originalSHA256)
                    && (storedThumbnails.map { $0[thumbnail.path] != nil } ?? (access(layout.absolute(thumbnail.path), F_OK) == 0))
            }
            .sorted { $0.path < $1.path }
        report.thumbnails = thumbnails.count
        report.thumbnailsDropped = state.thumbnails.count - thumbnails.count
        // The history of what each URL gave, for the originals there are (older ones first replayed).
        let versions = state.versions.values.filter { known.contains($0.sha256) }.sorted { ($0.url, $0.sha256) < ($1.url, $1.sha256) }
        report.previousCatalog = try install(originals: originals, sources: sources, versions: versions, thumbnails: thumbnails,
                                             state: report.previousCatalogState)
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    // MARK: Steps

    /// nil when there is no catalog; why it may be replaced otherwise; throws when it must not be.
    private func assessCurrentCatalog(_ library: Library) throws -> String? {
        guard library.hasCatalog else { return nil }
        do {
            let catalog = try library.openCatalog(readOnly: true)
            let count = try catalog.countOriginals()
            let sources = try catalog.countSources()
            let isEmpty = count == 0 && sources == 0
            catalog.close()
            if isEmpty { return "empty" }
            guard force else { throw VerifyError.catalogHealthy(path: layout.catalog, originals: count) }
            return "replaced"
        } catch let error as CatalogError {
            switch error {
            case .corrupt: return "corrupt"
            case .schemaTooNew, .busy: throw error
            default: return "unusable"
            }
        }
    }

    /// What a healthy catalog knows that the journal does not (a journal cut short or
    /// damaged): journaled before the rebuild, so --force never loses a row.
    private func healthyCatalogEntriesMissing(_ library: Library, from state: JournalState) throws -> [JournalEntry] {
        let catalog = try library.openCatalog(readOnly: true)
        defer { catalog.close() }
        let (originals, sources, thumbnails) = try catalog.transaction {
            (try catalog.allOriginals(), try catalog.allSources(), try catalog.allThumbnails())
        }
        return originals.filter { state.originals[$0.sha256] == nil }.map(JournalEntry.originalStored)
            + sources.filter { state.sources[$0.url] != $0 }.map(JournalEntry.sourceRecorded)
            + thumbnails.filter { state.thumbnails[$0.path] != $0 }.map(JournalEntry.thumbnailRecorded)
    }

    /// The rule of `LibraryRecovery` (the one fetch follows), with the journal as the record.
    private func recoverStaged(store: OriginalStore, state: JournalState, report: inout ReindexReport) throws {
        let recovery = try LibraryRecovery.run(store: store) { state.originals[$0] }
        report.stagedPublished += recovery.published
        report.tempFilesRemoved += recovery.partialsRemoved + recovery.dropped
    }

    /// Hashes by path bytes (`LibraryFile.pathKey`): composed and decomposed "café" are two files.
    /// Every object under originals/ of a remote store, as files (read-only, regular).
    private static func listing(of store: OriginalStore) throws -> LibraryFile.Listing {
        var listing = LibraryFile.Listing()
        try store.list(under: LibraryLayout.originalsFolder) { listing.files.append(LibraryFile(stored: $0)) }
        listing.files.sort { $0.path < $1.path }
        return listing
    }

    /// The SHA-256 of each file: hashed, or for an object store the hash its object carries
    /// (streamed and hashed when it carries none).
    private func hash(_ files: [LibraryFile], remote: OriginalStore?, report: inout ReindexReport) throws -> [[UInt8]: String] {
        let results = LockedBox((hashes: [[UInt8]: String](), bytes: Int64(0), unreadable: [String]()))
        // A store that fails (a 503 after retries, refused credentials): the rebuild stops and
        // the previous catalog stays, instead of a catalog without the objects that failed.
        let storeFailure = LockedBox<Error?>(nil)
        let layout = layout
        let cancellation = cancellation
        nonisolated(unsafe) let remote = remote
        ParallelLoop.run(count: files.count, jobs: jobs) { index in
            guard !cancellation.isSet else { return }
            let file = files[index]
            let result: (sha256: String, bytes: Int64)?
            if let remote {
                do {
                    result = try Self.remoteHash(file, in: remote)
                } catch S3Error.noSuchKey {
                    result = nil  // removed since the listing
                } catch {
                    storeFailure.update { $0 = $0 ?? error }
                    return
                }
            } else {
                result = try? SHA256Hasher.hashFile(atPath: layout.absolute(file.path))
            }
            results.update {
                if let result {
                    $0.hashes[file.pathKey] = result.sha256
                    $0.bytes += result.bytes
                } else {
                    $0.unreadable.append(file.path)
                }
            }
        }
        if let failure = storeFailure.current { throw failure }
        let collected = results.current
        report.bytesHashed = collected.bytes
        report.unreadableFiles = collected.unreadable.sorted()
        return collected.hashes
    }

    /// The hash an object carries, else its streamed SHA-256 (bytes counted only when hashed here).
    static func remoteHash(_ file: LibraryFile, in store: OriginalStore) throws -> (sha256: String, bytes: Int64) {
        if let recorded = try store.recordedSHA256(path: file.path), recorded.count == 64,
           recorded.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) {
            return (recorded, 0)
        }
        let hasher = SHA256Hasher()
        var bytes: Int64 = 0
        try store.stream(path: file.path) { chunk in
            hasher.update(chunk)
            bytes += Int64(chunk.count)
        }
        return (hasher.finalizeHex(), bytes)
    }

    /// One record per distinct content, and the records that were not journaled.
    private func chooseOriginals(
        _ files: [LibraryFile], hashes: [[UInt8]: String], state: JournalState, remote: OriginalStore?, report: inout ReindexReport
    ) throws -> (all: [OriginalRecord], unjournaled: [OriginalRecord]) {
        var bySHA: [String: [LibraryFile]] = [:]
        var order: [String] = []
        for file in files {
            guard let sha = hashes[file.pathKey] else { continue }
            if bySHA[sha] == nil { order.append(sha) }
            bySHA[sha, default: []].append(file)
        }
        let journaledByPath = Dictionary(state.originals.values.map { (Array($0.path.utf8), $0) }, uniquingKeysWith: { first, _ in first })
        var all: [OriginalRecord] = []
        var unjournaled: [OriginalRecord] = []
        var changed: Set<String> = []
        for sha in order {
            try stopIfCancelled()  // EXIF is read for each file the journal does not know
            let copies = bySHA[sha] ?? []
            let journaled = state.originals[sha]
            let chosen = copies.first { $0.pathKey == journaled.map { Array($0.path.utf8) } } ?? copies[0]
            report.duplicateFiles += copies.filter { $0.pathKey != chosen.pathKey }.map(\.path)
            if var record = journaled {
                makeReadOnly(chosen)
                record.path = chosen.path
                record.bytes = chosen.bytes
                // Journaled before lenses or exposures were recorded: the file says.
                if record.lens == nil || record.exposure == nil, let read = metadata(of: chosen, remote: remote) {
                    record.lens = record.lens ?? OriginalRecord.lens(of: read)
                    record.exposure = record.exposure ?? OriginalRecord.exposure(of: read)
                }
                all.append(record)
                report.originalsFromJournal += 1
            } else if let expected = journaledByPath[chosen.pathKey], bySHA[expected.sha256] == nil {
                // The journal stored other bytes here: the file changed (bit rot, an edit). Its
                // record stays, with its sources, so verify goes on reporting the hash mismatch.
                all.append(expected)
                changed.insert(expected.sha256)
                report.changedFiles.append(chosen.path)
                report.originalsFromJournal += 1
            } else if let format = try sniff(chosen, remote: remote) {
                let record = recordFromFile(chosen, sha256: sha, format: format, remote: remote)
                makeReadOnly(chosen)
                all.append(record)
                unjournaled.append(record)
                report.originalsFromFiles += 1
            } else {
                report.notImages.append(chosen.path)
            }
        }
        // Those in a folder that could not be listed are reported with the folder instead.
        let unseen = report.unreadableFolders.map { $0.path + "/" }
        report.journaledOriginalsWithoutFile = state.originals.filter { sha, record in
            bySHA[sha] == nil && !changed.contains(sha) && !unseen.contains { record.path.hasPrefix($0) }
        }.count
        report.duplicateFiles.sort()
        return (all, unjournaled)
    }

    /// An original is read-only, as fetch stores it: one adopted, moved or renamed by hand may not be.
    private func makeReadOnly(_ file: LibraryFile) {
        if file.isWritable { chmod(layout.absolute(file.path), 0o444) }
    }

    /// What the file itself says, for an original the journal does not know (sniffed as `format`).
    /// The image format of a file by its first bytes; nil for a file that is no image.
    func sniff(_ file: LibraryFile, remote: OriginalStore?) throws -> ImageFormat? {
        guard let remote else { return FormatSniffer.sniff(fileAt: layout.absolute(file.path)) }
        return FormatSniffer.sniff(try remote.read(path: file.path, offset: 0, count: FormatSniffer.prefixLength))
    }

    /// The file's metadata: nil when metadata is not read (`readMetadata` nil); `.some(nil)`
    /// when it is, and the file has none that can be read.
    func metadata(of file: LibraryFile, remote: OriginalStore?) -> PhotoMetadata?? {
        guard let readMetadata else { return nil }
        if let remote { return .some(try? MetadataReader.read(store: remote, path: file.path)) }
        return .some(try? readMetadata(layout.absolute(file.path)))
    }

    func recordFromFile(_ file: LibraryFile, sha256: String, format: ImageFormat, remote: OriginalStore?) -> OriginalRecord {
        let read = metadata(of: file, remote: remote)
        let metadata = read ?? nil
        let modified = time_t(file.modified)
        let dated = CaptureDate.forFile(metadata: metadata, modified: modified)
        return OriginalRecord(
            sha256: sha256, path: file.path, bytes: file.bytes,
            contentType: format.mimeType,
            width: metadata?.width, height: metadata?.height,
            takenAt: dated.takenAt, datedBy: dated.source,
            make: metadata?.make, model: metadata?.model, lens: read.map(OriginalRecord.lens(of:)),
            exposure: read.map(OriginalRecord.exposure(of:)),
            gpsLatitude: metadata?.gps?.latitude, gpsLongitude: metadata?.gps?.longitude,
            gpsAltitude: metadata?.gps?.altitude, orientation: metadata?.orientation,
            addedAt: Timestamp.iso8601(modified))
    }

    // MARK: Installing the new catalog

    /// Builds the catalog in .tmp/, moves the previous one aside, puts the new one in place.
    private func install(
        originals: [OriginalRecord], sources: [SourceRecord], versions: [SourceVersion], thumbnails: [ThumbnailRecord], state: String?
    ) throws -> String? {
        let rebuild = layout.staging + "/catalog.sqlite.rebuild"
        Self.removeDatabase(rebuild)
        do {
            let catalog = try SQLiteCatalog(path: rebuild)
            try catalog.transaction {
                for (index, record) in originals.enumerated() {
                    if index % 1024 == 0 { try stopIfCancelled() }
                    try catalog.insertOriginal(record)
                }
                for (index, record) in sources.enumerated() {
                    if index % 1024 == 0 { try stopIfCancelled() }
                    try catalog.upsertSource(record)
                }
                for version in versions { try catalog.upsertSourceVersion(version) }
                for record in thumbnails { try catalog.upsertThumbnail(record) }
            }
            catalog.close()
            try stopIfCancelled()  // the last moment the previous catalog can be left as it was
        } catch {
            Self.removeDatabase(rebuild)
            throw error
        }
        let previous = try moveCurrentCatalogAside(state: state)
        guard rename(rebuild, layout.catalog) == 0 else {
            let detail = String(cString: strerror(errno))
            if let previous { _ = rename(layout.absolute(previous), layout.catalog) }
            Self.removeDatabase(rebuild)
            throw VerifyError.cannotReplace(path: layout.catalog, detail: detail)
        }
        _ = FolderPath.sync(layout.root)
        return previous
    }

    /// Renames catalog.sqlite (and its -wal) to a dated name; a stray -wal without its
    /// database is moved too, so SQLite never replays it into the new file.
    private func moveCurrentCatalogAside(state: String?) throws -> String? {
        let files = FileManager.default
        let hasCatalog = files.fileExists(atPath: layout.catalog)
        let hasWAL = files.fileExists(atPath: layout.catalog + "-wal")
        unlink(layout.catalog + "-shm")
        guard hasCatalog || hasWAL else { return nil }
        let target = Self.unusedName(layout.absolute("catalog.sqlite.\(hasCatalog ? (state ?? "replaced") : "orphan")-\(Self.stamp())"))
        let name = (target as NSString).lastPathComponent
        if hasCatalog, rename(layout.catalog, target) != 0 {
            throw VerifyError.cannotReplace(path: layout.catalog, detail: "cannot move it aside: \(String(cString: strerror(errno)))")
        }
        if hasWAL, rename(layout.catalog + "-wal", target + "-wal") != 0 {
            let detail = String(cString: strerror(errno))
            if hasCatalog { _ = rename(target, layout.catalog) }
            throw VerifyError.cannotReplace(path: layout.catalog, detail: "cannot move its -wal aside: \(detail)")
        }
        return name
    }

    /// `path`, or `path-2`, `path-3`…: the first that names nothing (and nothing's -wal), so
    /// two runs in one second never overwrite what the first kept.
    private static func unusedName(_ path: String) -> String {
        var candidate = path
        var number = 1
        while access(candidate, F_OK) == 0 || access(candidate + "-wal", F_OK) == 0 {
            number += 1
            candidate = path + "-\(number)"
        }
        return candidate
    }

    /// The time in file names of kept files: 20261130T190000Z.
    private static func stamp() -> String {
        Timestamp.iso8601().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }

    private static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
