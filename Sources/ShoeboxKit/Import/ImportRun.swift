import Foundation

/// `shoebox import PATH…`: archives local photos (folders, memory cards, phone dumps) into
/// the library under fetch's rules: each file is copied into the staging area with its
/// SHA-256 (or hard-linked, `--link`), then goes through the same `Archiver` as a download:
/// Content checks by its bytes, metadata, capture date (EXIF, else the file's modification
/// time), a safe name from its own, de-duplication by content, journal, catalog, publish.
/// So a kill at any moment leaves nothing half-made, and reindex rebuilds it from the journal.
///
/// Each file's source is recorded as its `file://` URL, with a quick-check token (size and
/// modification time, `quickCheckToken`) in the ETag column: a second import of an unchanged
/// tree reads no file's bytes. Folders are walked without following symbolic links; links to
/// files are followed only with `followLinks`. What is not a photo (videos, sidecars, system
/// files) is skipped and counted. With `move`, a source is removed once its original is
/// durable and catalogued, and only if it is still the file that was read.
public final class ImportRun: @unchecked Sendable {
    public let configuration: LibraryConfiguration
    public let options: ImportOptions
    /// Each file's result (fetch's shape: `url` its file:// URL, `origin` its path), in order.
    public var onResult: ((FetchResult) -> Void)?
    /// A file not imported, before any archiving: its path and what it is.
    public var onSkip: ((_ path: String, _ what: String) -> Void)?
    /// Files looked at so far and bytes read.
    public var onProgress: ((_ files: Int, _ bytes: Int64) -> Void)?
    /// A problem that is not one file's: a folder that cannot be listed.
    public var onNotice: ((String) -> Void)?
    private let cancelFlag = ManagedAtomicFlag()
    /// What stopped the run early (a full disk, a catalog or store gone), for its exit status.
    public private(set) var stopError: Error?
    /// The walk (copying and hashing, this thread) and the archiver (a thread of its own)
    /// share the tally, the files to remove and the reports: under this lock.
    private let lock = NSLock()
    private var sharedRemoval: [(Candidate, String)] = []
    private var sharedSummary = ImportSummary()
    /// `--move`: sources whose originals the library has, removed after their batch (`removeMoved`).
    private var pendingRemoval: [(Candidate, String)] {
        get { lock.withLock { sharedRemoval } }
        _modify { lock.lock(); defer { lock.unlock() }; yield &sharedRemoval }
    }
    /// The run's tally.
    private var summary: ImportSummary {
        get { lock.withLock { sharedSummary } }
        _modify { lock.lock(); defer { lock.unlock() }; yield &sharedSummary }
    }
    /// Files copied while the archiver works on the ones before (each holds an open staging file).
    static let backlogLimit = 16
    private let reportLock = NSLock()

    private func emit(_ result: FetchResult) { reportLock.withLock { onResult?(result) } }
    private func skip(_ path: String, _ what: String) { reportLock.withLock { onSkip?(path, what) } }

    public init(configuration: LibraryConfiguration, options: ImportOptions) {
        self.configuration = configuration
        self.options = options
    }

    /// Stops after the file in hand (Ctrl-C): what was read is archived, the rest is not looked at.
    public func cancel() { cancelFlag.set() }

    /// The quick check's record of a file: its size and modification time to the nanosecond.
    static func quickCheckToken(_ info: stat) -> String {
        "file:\(info.st_size):\(info.st_mtim.tv_sec).\(String(format: "%09ld", info.st_mtim.tv_nsec))"
    }

    /// A file found under the given paths.
    struct Candidate {
        let path: String
        let info: stat
    }

    public func run() throws -> ImportSummary {
        let start = Date()
        let roots = try options.paths.map(resolve)
        summary = ImportSummary()
        if options.dryRun {
            try dryRun(roots)
            summary.elapsed = Date().timeIntervalSince(start)
            return summary
        }
        let library = try Library.openForWriting(configuration, creating: true)
        defer { withExtendedLifetime(library) {} }
        let store = try library.store()
        if options.link, !(store is LocalOriginalStore) { throw ImportError.linkNeedsLibraryFolder(store: store.displayName) }
        let catalog = try library.openCatalog()
        defer { catalog.close() }
        try library.recover(catalog: catalog)
        let journal = try library.openChangeLog()
        // The walk's quick checks read through a connection of their own.
        let lookups = try library.openCatalog(checkIntegrity: false)
        defer { lookups.close() }
        nonisolated(unsafe) var batch: [String: Candidate] = [:]
        let archiver = Archiver(store: store, catalog: catalog, journal: journal.map { $0.append(originals:sources:) },
                                publishFirst: library.isShared) { [self] result in
            summary.add(result)
            let candidate = batch.removeValue(forKey: result.url)
            if let candidate {
                if options.link, result.outcome != .stored || result.notInPlace != nil {
                    chmod(candidate.path, candidate.info.st_mode & 0o7777)  // its link was dropped: its own mode back
                }
                if options.move, result.outcome.isSuccess, result.notInPlace == nil, let path = result.path {
                    pendingRemoval.append((candidate, path))
                }
            }
            emit(result)
        }
        // The archiver's thread: accepts what the walk copied, flushes full batches.
        let worker = WorkerPool(name: "shoebox-import", threads: 1)
        let strand = WorkerPool.Strand()
        let room = DispatchSemaphore(value: Self.backlogLimit)
        let failure = LockedBox<Error?>(nil)
        nonisolated(unsafe) let unsafeArchiver = archiver
        nonisolated(unsafe) let unsafeStore = store
        var seen = 0
        var bytesRead: Int64 = 0
        var stopError: Error?
        walk(roots, library: library.layout.root) { candidate in
            guard stopError == nil, failure.current == nil, !cancelFlag.isSet else { return false }
            seen += 1
            do {
                if let transfer = try prepare(candidate, store: store, catalog: lookups) {
                    bytesRead += Int64(candidate.info.st_size)
                    room.wait()
                    nonisolated(unsafe) let candidate = candidate
                    worker.async(on: strand) { [self] in
                        defer { room.signal() }
                        guard failure.current == nil else {
                            if case .received(let file, _, _, _) = transfer.body { unsafeStore.discard(file) }
                            return
                        }
                        do {
                            batch[transfer.request.item.recordedURL] = candidate
                            try unsafeArchiver.accept(transfer)
                            if unsafeArchiver.pendingCount >= Archiver.batchLimit {
                                try unsafeArchiver.flush()
                                removeMoved(store: unsafeStore)
                            }
                        } catch {
                            failure.update { $0 = $0 ?? error }
                        }
                    }
                }
            } catch {
                stopError = error
                return false
            }
            onProgress?(seen, bytesRead)
            return true
        }
        let finished: Error? = worker.sync(on: strand) { [self] in
            guard failure.current == nil else { return nil }
            do {
                try unsafeArchiver.flush()
                removeMoved(store: unsafeStore)
                return nil
            } catch {
                return error
            }
        }
        stopError = stopError ?? failure.current ?? finished
        summary.cancelled = cancelFlag.isSet
        summary.stopReason = stopError.map { "\($0)" }
        summary.elapsed = Date().timeIntervalSince(start)
        self.stopError = stopError
        return summary
    }

    // MARK: Walking

    /// A given path, absolute and checked: it exists and is not inside the library.
    private func resolve(_ path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ImportError.pathMissing(path: path, reason: String(cString: strerror(errno))) }
        guard let real = realpath(path, nil) else { throw ImportError.pathMissing(path: path, reason: String(cString: strerror(errno))) }
        defer { free(real) }
        let absolute = String(cString: real)
        if let library = realpath(configuration.layout.root, nil) {
            defer { free(library) }
            let root = String(cString: library)
            if absolute == root || absolute.hasPrefix(root + "/") { throw ImportError.insideLibrary(path: path, library: configuration.layout.root) }
        }
        return absolute
    }

    /// Calls `visit` with every regular file under `roots` (in name order within a folder), until
    /// it returns false. The library folder, if inside a root, is not entered.
    private func walk(_ roots: [String], library: String, _ visit: (Candidate) -> Bool) {
        let libraryRoot = realpath(library, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) }
        for root in roots {
            var info = stat()
            guard stat(root, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFREG {
                if !consider(root, info, visit) { return }
                continue
            }
            var files: [(String, stat)] = []
            var unnamed: [String] = []
            let unreadable = DirectoryWalker.walk(root) { entry in
                guard let name = String(validating: entry.relativePath, as: UTF8.self) else {
                    unnamed.append(root + "/" + DirectoryWalker.shown(entry.relativePath))
                    return
                }
                let path = root + "/" + name
                if let libraryRoot, path == libraryRoot || path.hasPrefix(libraryRoot + "/") { return }
                files.append((path, entry.info))
            }
            for folder in unreadable {
                let shown = folder.relativePath.isEmpty ? root : root + "/" + DirectoryWalker.shown(folder.relativePath)
                onNotice?("\(shown)/: cannot be listed (\(String(cString: strerror(folder.code)))); the photos in it were not imported")
                summary.failed += 1
            }
            for path in unnamed {
                summary.failed += 1
                emit(FetchResult(url: path, origin: path, outcome: .failed,
                                      reason: "its name is not UTF-8 (stray bytes shown as \\xNN), which the catalog cannot record; "
                                        + "rename it to UTF-8 (e.g. `convmv`) and import again"))
            }
            files.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (path, info) in files where !consider(path, info, visit) { return }
        }
    }

    /// Sorts out what is no candidate (links not followed, junk, other file types); false stops the walk.
    private func consider(_ path: String, _ info: stat, _ visit: (Candidate) -> Bool) -> Bool {
        var info = info
        let name = String(path.split(separator: "/").last ?? "")
        if (info.st_mode & S_IFMT) == S_IFLNK {
            var target = stat()
            guard options.followLinks, stat(path, &target) == 0, (target.st_mode & S_IFMT) == S_IFREG else {
                summary.linksSkipped += 1
                skip(path, options.followLinks ? "symbolic link to no file" : "symbolic link, not followed (--follow-links)")
                return true
            }
            info = target
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return true }
        if let junk = ImportFileKind.junk(name: name) {
            summary.notPhotos[junk, default: 0] += 1
            skip(path, junk)
            return true
        }
        return visit(Candidate(path: path, info: info))
    }

    // MARK: One file

    /// The transfer that hands `candidate` to the archiver, or nil when it is skipped (unchanged
    /// since imported, not a photo, unreadable: said through `onSkip` / `onResult`).
    private func prepare(_ candidate: Candidate, store: OriginalStore, catalog: Catalog) throws -> CompletedTransfer? {
        let url = URL(fileURLWithPath: candidate.path).absoluteString
        let token = Self.quickCheckToken(candidate.info)
        if let known = try catalog.source(url: url), let sha256 = known.sha256, known.etag == token,
           let original = try catalog.original(sha256: sha256), original.bytes == Int64(candidate.info.st_size),
           // A source about to be removed is read again unless its original is there to be seen.
           try !options.move || store.info(path: original.path)?.bytes == original.bytes {
            var result = FetchResult(url: url, origin: candidate.path, outcome: .skipped, reason: "already in the library (same size and time)")
            result.path = original.path
            result.sha256 = sha256
            result.bytes = original.bytes
            result.original = original
            summary.unchanged += 1
            if options.move { pendingRemoval.append((candidate, original.path)) }
            emit(result)
            return nil
        }
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (options.followLinks ? 0 : O_NOFOLLOW)
        let input = open(candidate.path, flags)
        guard input >= 0 else { return failed(candidate, url, String(cString: strerror(errno))) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return failed(candidate, url, "not a regular file") }
        // Not a photo (by its first bytes): skipped before anything is copied.
        var prefix = [UInt8](repeating: 0, count: StagingCopy.prefixLength)
        let got = prefix.withUnsafeMutableBytes { pread(input, $0.baseAddress!, $0.count, 0) }
        prefix.removeSubrange(max(0, got)...)
        if case .reject = ContentTypeRules.decide(contentType: nil, prefix: prefix, bodyBytes: Int64(info.st_size), file: candidate.path) {
            let what = ImportFileKind.notAPhoto(name: String(candidate.path.split(separator: "/").last ?? ""))
            summary.notPhotos[what, default: 0] += 1
            skip(candidate.path, what)
            return nil
        }
        let copy: StagingCopy
        if options.link, let local = store as? LocalOriginalStore {
            do {
                let file = try local.staging.makeStagingLink(to: candidate.path)
                let hashed = try SHA256Hasher.hashFile(atPath: file.path)
                copy = StagingCopy(file: file, sha256: hashed.sha256, bytes: hashed.bytes, prefix: prefix)
            } catch let error as POSIXFileError where error.operation == "link" {
                let reason = error.code == EXDEV ? "on another file system than the library: it cannot be linked (import without --link to copy it)"
                    : String(cString: strerror(error.code))
                return failed(candidate, url, reason)
            }
        } else {
            lseek(input, 0, SEEK_SET)
            do {
                copy = try StagingCopy.copy(from: input, into: store, library: configuration.layout.root)
            } catch {
                switch error {
                case .source(let reason): return failed(candidate, url, reason)
                case .library(let failure): throw failure
                }
            }
        }
        // A file that changed while it was read is not recorded under its old size and time.
        var after = stat()
        if fstat(input, &after) != 0 || after.st_size != info.st_size || after.st_mtim.tv_sec != info.st_mtim.tv_sec
            || after.st_mtim.tv_nsec != info.st_mtim.tv_nsec || copy.bytes != Int64(info.st_size) {
            store.discard(copy.file)
            return failed(candidate, url, "the file changed while it was read; import it again when nothing writes to it")
        }
        return CompletedTransfer(
            request: TransferRequest(item: FetchItem(url: url, origin: candidate.path)),
            body: .received(copy.file, sha256: copy.sha256, bytes: copy.bytes, prefix: copy.prefix),
            attempts: 1, httpStatus: nil, contentType: nil, etag: Self.quickCheckToken(info),
            lastModified: Timestamp.httpDate(info.st_mtim.tv_sec), finalURL: nil,
            localFile: (candidate.path, info.st_mtim.tv_sec))
    }

    private func failed(_ candidate: Candidate, _ url: String, _ reason: String) -> CompletedTransfer? {
        summary.failed += 1
        emit(FetchResult(url: url, origin: candidate.path, outcome: .failed, reason: reason))
        return nil
    }

    /// `--move`: removes the sources of a flushed batch whose originals are in place, once their
    /// folders are synced, and only those still the file that was read (same inode, size, time).
    private func removeMoved(store: OriginalStore) {
        let pending = pendingRemoval
        guard !pending.isEmpty else { return }
        pendingRemoval.removeAll()
        if let local = store as? LocalOriginalStore {
            for folder in Set(pending.map { FolderPath.containing($0.1) }) {
                let fd = open(local.layout.absolute(folder), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if fd >= 0 { fsync(fd); close(fd) }
            }
        }
        for (candidate, path) in pending {
            guard (try? store.info(path: path))??.bytes == Int64(candidate.info.st_size) else {
                onNotice?("\(candidate.path): its original \(path) is not in place yet; not removed (the next import --move removes it)")
                continue
            }
            var now = stat()
            guard lstat(candidate.path, &now) == 0 || options.followLinks && stat(candidate.path, &now) == 0 else { continue }
            let same = now.st_ino == candidate.info.st_ino && now.st_dev == candidate.info.st_dev && now.st_size == candidate.info.st_size
                && now.st_mtim.tv_sec == candidate.info.st_mtim.tv_sec && now.st_mtim.tv_nsec == candidate.info.st_mtim.tv_nsec
            guard same || (now.st_mode & S_IFMT) == S_IFLNK else {
                onNotice?("\(candidate.path): changed after it was read; not removed (import it again)")
                continue
            }
            if unlink(candidate.path) == 0 {
                summary.moved += 1
            } else {
                onNotice?("\(candidate.path): archived, but could not be removed (\(String(cString: strerror(errno))))")
            }
        }
    }

    // MARK: Dry run

    /// Where each file would go, without writing anything: the catalog (when there is one) tells
    /// duplicates and unchanged files; names planned in this run are not given twice.
    private func dryRun(_ roots: [String]) throws {
        let library = Library.unchecked(configuration)
        let catalog = library.hasCatalog ? try library.openCatalog(readOnly: true) : nil
        defer { catalog?.close() }
        let store = library.hasCatalog ? try? library.store() : nil
        var planned = Set<String>()
        var plannedContent: [String: String] = [:]
        walk(roots, library: configuration.layout.root) { candidate in
            guard !cancelFlag.isSet else { return false }
            let url = URL(fileURLWithPath: candidate.path).absoluteString
            var result = FetchResult(url: url, origin: candidate.path, outcome: .stored)
            do {
                if let known = try catalog?.source(url: url), let sha256 = known.sha256, known.etag == Self.quickCheckToken(candidate.info),
                   let original = try catalog?.original(sha256: sha256) {
                    result.outcome = .skipped
                    result.reason = "already in the library (same size and time)"
                    result.path = original.path
                    summary.unchanged += 1
                    emit(result)
                    return true
                }
                let prefix = Array((try? Data(contentsOf: URL(fileURLWithPath: candidate.path), options: .alwaysMapped).prefix(StagingCopy.prefixLength)) ?? Data())
                guard case .accept(let format, _) = ContentTypeRules.decide(contentType: nil, prefix: prefix, bodyBytes: Int64(candidate.info.st_size), file: candidate.path) else {
                    let what = ImportFileKind.notAPhoto(name: String(candidate.path.split(separator: "/").last ?? ""))
                    summary.notPhotos[what, default: 0] += 1
                    skip(candidate.path, what)
                    return true
                }
                let hashed = try SHA256Hasher.hashFile(atPath: candidate.path)
                result.sha256 = hashed.sha256
                result.bytes = hashed.bytes
                if let path = try catalog?.original(sha256: hashed.sha256)?.path ?? plannedContent[hashed.sha256] {
                    result.outcome = .duplicate
                    result.path = path
                    summary.duplicates += 1
                } else {
                    let metadata = try? MetadataReader.read(path: candidate.path)
                    let dated = CaptureDate.forFile(metadata: metadata, modified: candidate.info.st_mtim.tv_sec)
                    let stem = LibraryPathPlanner.stem(fileName: candidate.path, sha256: hashed.sha256)
                    var choice = 1
                    var path = LibraryPathPlanner.candidate(folder: dated.folder, stem: stem, fileExtension: format.fileExtension, choice: choice)
                    while planned.contains(CaseFoldedPath.fold(path)) || (try? catalog?.hasOriginal(pathIgnoringCase: path)) == true
                        || (try? store?.exists(path: path)) == true {
                        choice += 1
                        path = LibraryPathPlanner.candidate(folder: dated.folder, stem: stem, fileExtension: format.fileExtension, choice: choice)
                    }
                    planned.insert(CaseFoldedPath.fold(path))
                    plannedContent[hashed.sha256] = path
                    result.path = path
                    summary.stored += 1
                    summary.bytesStored += hashed.bytes
                }
            } catch {
                result.outcome = .failed
                result.reason = "\(error)"
                summary.failed += 1
            }
            emit(result)
            return true
        }
    }
}
