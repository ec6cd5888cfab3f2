import Foundation

/// `shoebox verify`: checks that every original in the catalog is still there bit
/// for bit with its metadata, and that nothing else crept into the library.
///
/// Runs beside a writer (fetch, thumbs, reindex) without taking the library lock: it
/// reads one snapshot of the catalog (a read transaction) and checks what that snapshot
/// holds. A file under originals/ the snapshot lacks is looked up again once the scan is
/// done (fetch commits a row before it publishes the file), so an original added meanwhile
/// is not an unknown file; while a writer holds the lock, the temp files in .tmp/ and
/// thumbnails/ are its own, not leftovers, and thumbnail findings are withheld (a thumbs
/// run changes files before rows). The report says what was not checked. With
/// `waitForLock` it takes the lock shared instead, after the writer is done, so none runs
/// meanwhile. Hashes originals on `jobs` threads.
public struct LibraryVerifier: Sendable {
    /// The library checked: every catalog and store it reads comes from here.
    public let library: Library
    public var layout: LibraryLayout { library.layout }
    public var quick: Bool
    public var jobs: Int
    public var readMetadata: MetadataReading?
    /// Wait for a running writer to finish, and keep writers out while checking (the lock
    /// taken shared), instead of checking beside one.
    public var waitForLock = false
    /// Called from the worker threads after each original: (checked, total, bytes hashed).
    public var progress: (@Sendable (_ checked: Int, _ total: Int, _ bytes: Int64) -> Void)?
    var launcher = ThreadLauncher.system

    public init(layout: LibraryLayout, quick: Bool = false, jobs: Int? = nil, readMetadata: MetadataReading? = LibraryVerifier.defaultMetadataReader) {
        self.init(configuration: LibraryConfiguration(layout: layout), quick: quick, jobs: jobs, readMetadata: readMetadata)
    }

    public init(configuration: LibraryConfiguration, quick: Bool = false, jobs: Int? = nil,
                readMetadata: MetadataReading? = LibraryVerifier.defaultMetadataReader) {
        library = Library.unchecked(configuration)
        self.quick = quick
        self.jobs = jobs ?? ParallelLoop.defaultJobs
        self.readMetadata = readMetadata
    }

    /// The EXIF reader verify and reindex use unless told otherwise.
    public static let defaultMetadataReader: MetadataReading? = { try MetadataReader.read(path: $0) }

    public func run() throws -> VerifyReport {
        let start = Date()
        try Self.requireLibrary(library.configuration)
        let lock = waitForLock ? try sharedLock(wait: true) : nil
        defer { withExtendedLifetime(lock) {} }
        let writerAtStart = waitForLock ? nil : library.currentWriter
        guard library.isShared || FileManager.default.fileExists(atPath: layout.catalog) else {
            throw VerifyError.catalogMissing(path: layout.catalog, library: layout.root)
        }
        let catalog = try library.openCatalog(readOnly: true)
        let (originals, thumbnails) = try catalog.transaction { (try catalog.allOriginals(), try catalog.allThumbnails()) }
        catalog.close()

        var report = VerifyReport()
        report.quick = quick
        report.originalsChecked = originals.count
        report.thumbnailsChecked = thumbnails.count
        // Writers sharing a catalog stage in folders of their own, which are their work in
        // progress while they live (a dead writer's is swept by the next one).
        var temps = LibraryFile.scan(".tmp", in: layout)
        if library.isShared { temps.files.removeAll { $0.path.hasPrefix(".tmp/" + WriterStagingFolder.namePrefix) } }
        // Originals in an object store are listed once (sizes included) and checked there.
        let store = try library.store()
        var remote: (store: OriginalStore, listed: [String: Int64])?
        var listing = LibraryFile.Listing()
        if !(store is LocalOriginalStore) {
            var listed: [String: Int64] = [:]
            try store.list(under: LibraryLayout.originalsFolder) { object in
                listed[object.path] = object.bytes
                listing.files.append(LibraryFile(stored: object))
            }
            remote = (store, listed)
        }
        var findings = checkOriginals(originals, staged: Self.stagedHashes(temps.files), remote: remote, report: &report)
        // Scanned after the check, as before: an original a writer adds meanwhile is seen, and
        // found in the catalog again below.
        if remote == nil { listing = LibraryFile.scan(LibraryLayout.originalsFolder, in: layout) }
        report.filesScanned = listing.files.count
        let known = Set(originals.map { Array($0.path.utf8) })
        var unknown = listing.files.filter { !known.contains($0.pathKey) }
        // Rows a writer committed since the snapshot (then published their files): not unknown.
        let (added, abandoned) = addedSinceSnapshot(unknown)
        report.addedSinceSnapshot = added.count
        unknown.removeAll { added.contains($0.pathKey) || abandoned[$0.pathKey] != nil }
        findings += abandoned.values.sorted { $0.path < $1.path }.map(Self.abandonedPublish)
        findings += unknownFiles(unknown)
        findings += listing.unreadableFolders.map { Self.unlisted($0, unseen: "files in it were not checked against the catalog") }
        findings += temps.unreadableFolders.map { Self.unlisted($0, unseen: "leftovers of interrupted runs in it went unseen") }
        // Thumbnails are beside the originals: in a bucket (`ObjectThumbnailStore`), listed once.
        let storedThumbnails = remote == nil ? nil : try store.sizes(under: ThumbnailLayout.folder)
        findings += checkThumbnails(thumbnails, originals: originals, stored: storedThumbnails)
        // A shared catalog keeps no journal: PostgreSQL is durable itself.
        if !library.isShared { findings += checkJournal(originals) }
        // A staged file an original is waiting for is that original's pending-publish notice, not a leftover.
        let awaited = Set(findings.filter { $0.kind == .pendingPublish }.compactMap(\.sha256))
        var temporary = temps.files.filter { !awaited.contains(Self.stagedHash($0) ?? "") }.compactMap(Self.leftover)
        if let bucket = store as? S3OriginalStore {
            temporary += try bucket.remoteLeftovers().map { Self.leftover($0, in: bucket) }
        }
        temporary += ThumbnailLayout.leftovers(in: layout.root).map {
            VerifyProblem(kind: .leftoverTemp, path: $0.shown, detail: "thumbnail left half-written by an interrupted run; the next thumbs removes it")
        }
        // A running writer's temp files and files it is publishing are its own work in progress.
        report.writer = waitForLock ? nil : writerAtStart ?? library.currentWriter
        if report.writer != nil {
            let writers = findings.filter { $0.kind == .pendingPublish } + temporary
            report.writerFilesSkipped = writers.count
            findings.removeAll { $0.kind == .pendingPublish }
            // thumbs renames a new thumbnail into place before its row is committed, and prunes
            // files before rows: what the snapshot says of thumbnails may be stale by now.
            let thumbnailKinds: Set<VerifyProblem.Kind> = [.thumbnailMissing, .thumbnailDamaged, .thumbnailStale]
            report.thumbnailFindingsWithheld = findings.filter { thumbnailKinds.contains($0.kind) }.count
            findings.removeAll { thumbnailKinds.contains($0.kind) }
        } else {
            findings += temporary
        }
        report.findings = findings.sorted { ($0.path, $0.kind.rawValue) < ($1.path, $1.kind.rawValue) }
        report.totalSeconds = Date().timeIntervalSince(start)
        return report
    }

    // MARK: Steps

    private func checkOriginals(_ originals: [OriginalRecord], staged: Set<String>,
                                remote: (store: OriginalStore, listed: [String: Int64])?, report: inout VerifyReport) -> [VerifyProblem] {
        var configured = OriginalChecker(layout: layout, quick: quick, readMetadata: readMetadata, staged: staged)
        configured.remote = remote
        let checker = configured
        let results = LockedBox((outcome: OriginalChecker.Outcome(), checked: 0))
        let start = Date()
        let progress = progress
        report.hashThreads = ParallelLoop.run(count: originals.count, jobs: jobs, launcher: launcher) { index in
            let outcome = checker.check(originals[index])
            let (checked, bytes) = results.update {
                $0.outcome.findings += outcome.findings
                $0.outcome.bytesHashed += outcome.bytesHashed
                $0.checked += 1
                return ($0.checked, $0.outcome.bytesHashed)
            }
            progress?(checked, originals.count, bytes)
        }
        report.hashSeconds = Date().timeIntervalSince(start)
        report.bytesHashed = results.current.outcome.bytesHashed
        return results.current.outcome.findings
    }

    /// The paths of `unknown` files the catalog has now: added (committed, then published)
    /// by a writer after the snapshot was read. Nothing when the catalog cannot be read again.
    /// With a shared catalog, also those at paths still reserved by a writer that is gone
    /// (`abandoned`): it published them and stopped before recording them.
    private func addedSinceSnapshot(_ unknown: [LibraryFile]) -> (added: Set<[UInt8]>, abandoned: [[UInt8]: LibraryFile]) {
        let candidates = unknown.filter { $0.hasUTF8Name && $0.isRegular }
        guard !candidates.isEmpty,
              let catalog = try? library.openCatalog(readOnly: true, checkIntegrity: false) else { return ([], [:]) }
        defer { catalog.close() }
        // With a shared catalog, a path a writer holds reserved is its batch in flight
        // (published before its commit): its work in progress, not an unknown file; unless the
        // reservation is stale and its writer gone.
        let shared = catalog as? PostgresCatalog
        let stale = Set((try? shared?.staleReservations(olderThan: library.configuration.staleReservationAge))??
            .map { CaseFoldedPath.fold($0.path) } ?? [])
        var added = Set<[UInt8]>(), abandoned: [[UInt8]: LibraryFile] = [:]
        for file in candidates {
            if (try? catalog.original(path: file.path)) != nil {
                added.insert(file.pathKey)
            } else if (try? shared?.isReserved(file.path)) == true {
                if stale.contains(CaseFoldedPath.fold(file.path)) { abandoned[file.pathKey] = file } else { added.insert(file.pathKey) }
            }
        }
        return (added, abandoned)
    }

    /// An object a stopped writer published at a path it had reserved, never recorded.
    private static func abandonedPublish(_ file: LibraryFile) -> VerifyProblem {
        VerifyProblem(kind: .abandonedPublish, path: file.path,
                      detail: "put in place by a writer that stopped before recording it (its reservation is stale and its "
                          + "writer gone); the next fetch or reindex removes it")
    }

    /// Files the catalog lacks, compared by path bytes (`pathKey`): a name the file system tells
    /// apart (composed and decomposed "café") is another file, though Swift strings call the two equal.
    private func unknownFiles(_ files: [LibraryFile]) -> [VerifyProblem] {
        files.map { file in
            let detail: String
            if !file.hasUTF8Name {
                detail = "its name is not UTF-8 (stray bytes shown as \\xNN), so the catalog cannot record it; "
                    + "rename it to UTF-8 (e.g. `convmv`) and run `shoebox reindex --force`, or move it out of originals/"
            } else if file.isRegular {
                detail = "not in the catalog (\(file.bytes) bytes); `shoebox reindex --force` adopts it if it is an image, or move it out of originals/"
            } else {
                detail = "not a regular file and not in the catalog; move it out of originals/"
            }
            return VerifyProblem(kind: .unknownFile, path: file.path, detail: detail)
        }
    }

    /// `stored`: the thumbnails of an object store, as listed (no file times to compare there:
    /// thumbs judges an object by the original its row names).
    private func checkThumbnails(_ thumbnails: [ThumbnailRecord], originals: [OriginalRecord],
                                 stored: [String: Int64]?) -> [VerifyProblem] {
        let originalPaths = Dictionary(originals.map { ($0.sha256, $0.path) }, uniquingKeysWith: { first, _ in first })
        let what = stored == nil ? "file" : "object"
        return thumbnails.compactMap { thumbnail in
            // Its size, and for a file its time.
            let found: (bytes: Int64, file: LibraryFile?)?
            if let stored {
                found = stored[thumbnail.path].map { ($0, nil) }
            } else {
                found = LibraryFile.stat(absolute: layout.absolute(thumbnail.path), relative: thumbnail.path).map { ($0.bytes, $0) }
            }
            guard let found else {
                return VerifyProblem(
                    kind: .thumbnailMissing, path: thumbnail.path, sha256: thumbnail.originalSHA256,
                    detail: "recorded but the \(what) is gone; `shoebox thumbs` makes it again")
            }
            guard found.bytes == thumbnail.bytes else {
                return VerifyProblem(
                    kind: .thumbnailDamaged, path: thumbnail.path, sha256: thumbnail.originalSHA256,
                    detail: "\(found.bytes) bytes where \(thumbnail.bytes) were written; `shoebox thumbs` makes it again")
            }
            guard let file = found.file else { return nil }
            guard let originalPath = originalPaths[thumbnail.originalSHA256],
                  let original = LibraryFile.stat(absolute: layout.absolute(originalPath), relative: originalPath),
                  file.modified < original.modified else { return nil }
            return VerifyProblem(
                kind: .thumbnailStale, path: thumbnail.path, sha256: thumbnail.originalSHA256,
                detail: "older than its original \(originalPath), which was touched or changed since; "
                    + "`shoebox thumbs` remakes it if the original still holds its recorded bytes")
        }
    }

    private func checkJournal(_ originals: [OriginalRecord]) -> [VerifyProblem] {
        let scan: (hashes: Set<String>, damagedLines: [Int], overLongLines: [Int])
        do {
            scan = try Journal.scanOriginalHashes(path: layout.journal)
        } catch {
            return [VerifyProblem(kind: .journalDamaged, path: Journal.fileName, detail: "\(error)")]
        }
        let overLong = Set(scan.overLongLines)
        let limit = ByteSize.format(Int64(JournalLineReader.maxLineLength))
        let damaged = scan.damagedLines.map {
            VerifyProblem(
                kind: .journalDamaged, path: "\(Journal.fileName):\($0)",
                detail: (overLong.contains($0) ? "line \($0) is longer than \(limit), more than any entry, and was not loaded"
                    : "line \($0) cannot be read")
                    + "; `shoebox reindex --force` records what it described from the files "
                    + "and removes it from the journal (keeping the damaged copy)")
        }
        return damaged + originals.filter { !scan.hashes.contains($0.sha256) }.map {
            VerifyProblem(
                kind: .notJournaled, path: $0.path, sha256: $0.sha256,
                detail: "in the catalog but not in \(Journal.fileName): a reindex could not restore its sources; "
                    + "`shoebox reindex --force` journals it")
        }
    }

    /// A folder verify could not list or enter: what is in it went unseen.
    private static func unlisted(_ folder: UnlistedFolder, unseen: String) -> VerifyProblem {
        VerifyProblem(kind: .unreadable, path: folder.path + "/",
                      detail: "folder could not be listed (\(folder.reason)), so \(unseen); \(folder.advice)")
    }

    private static func leftover(_ file: LibraryFile) -> VerifyProblem? {
        let name = (file.path as NSString).lastPathComponent
        let what: String
        if LocalStagingArea.isPartialDownload(name: name) {
            what = "partial download left by an interrupted run"
        } else if LocalStagingArea.stagedHash(name: name) != nil {
            what = "complete download left unpublished by an interrupted run"
        } else {
            what = "temp file left by an interrupted run"
        }
        return VerifyProblem(kind: .leftoverTemp, path: file.path, detail: what + "; the next fetch or reindex removes it")
    }

    private static func leftover(_ leftover: S3OriginalStore.RemoteLeftover, in bucket: S3OriginalStore) -> VerifyProblem {
        let strip = bucket.bucket.listingPrefix
        let path = leftover.key.hasPrefix(strip) ? String(leftover.key.dropFirst(strip.count)) : leftover.key
        let what = leftover.uploadID != nil ? "incomplete multipart upload" : "staged object nothing refers to"
        return VerifyProblem(kind: .leftoverTemp, path: path,
                             detail: what + " in the bucket, left by an interrupted run; the next fetch or reindex removes it")
    }

    private static func stagedHashes(_ temps: [LibraryFile]) -> Set<String> {
        Set(temps.compactMap(stagedHash))
    }

    /// The hash a `.tmp/<sha256>.staged` file holds, nil for other temp files.
    private static func stagedHash(_ file: LibraryFile) -> String? {
        LocalStagingArea.stagedHash(name: (file.path as NSString).lastPathComponent)
    }

    // MARK: Library access

    /// The library folder exists and is one; with originals in an object store, the folder
    /// may hold nothing yet (reindex rebuilds its catalog from the bucket).
    static func requireLibrary(_ configuration: LibraryConfiguration) throws {
        let layout = configuration.layout
        // A shared catalog with originals in a bucket: nothing local to check.
        if configuration.catalog.isShared, configuration.store != .libraryFolder { return }
        try LibraryAccess.requireReadable(layout)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.root, isDirectory: &isFolder), isFolder.boolValue else {
            throw VerifyError.libraryMissing(path: layout.root)
        }
        // Checked so a mistyped --library never gets a catalog made by reindex.
        let marks = [layout.originals, layout.journal, layout.catalog]
        guard configuration.store != .libraryFolder || marks.contains(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw VerifyError.notALibrary(path: layout.root)
        }
    }

    /// The shared lock, so no writer runs meanwhile. A library on read-only media
    /// without a lock file cannot have a writer: no lock is needed there.
    private func sharedLock(wait: Bool) throws -> WriterCoordination? {
        // Writers sharing a catalog run on other machines too: no local lock keeps them out.
        guard !library.isShared else { return nil }
        let canHaveWriter = FileManager.default.fileExists(atPath: layout.lockFile) || access(layout.root, W_OK) == 0
        guard canHaveWriter else { return nil }
        return try library.holdWritersOff(wait: wait)
    }
}
