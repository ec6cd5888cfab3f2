import Foundation

/// Turns finished transfers into library entries, in batches:
/// checks the bytes, reads metadata, picks a path, then for the whole batch
/// syncs the staged files once, appends to the journal, commits the catalog,
/// and publishes the files. A crash at any point leaves either nothing or a
/// complete original with its row (finished by `LibraryRecovery`).
///
/// With a catalog shared by several writers (`publishFirst`), the order is publish, then
/// commit: a writer's staging folder is its own and may vanish with its machine, so no
/// committed row may wait for staged bytes. A crash between the two leaves objects at paths
/// still reserved for the dead writer, which recovery removes (`LibraryRecovery`). And content
/// another writer catalogued meanwhile is a duplicate: the row is inserted only if absent, and
/// the copy just published is removed.
/// All methods run on one thread (the fetch run's archiver queue).
final class Archiver {
    typealias JournalWriter = (_ originals: [OriginalRecord], _ sources: [SourceRecord]) throws -> Void

    private let store: OriginalStore
    private let catalog: Catalog
    private let journal: JournalWriter?
    private let publishFirst: Bool
    /// How a shared catalog's lookups, reservations and commits ride out a lost connection
    /// (each is safe to make twice).
    private let retry: ConnectionRetry
    /// Set when a batch's commit could not be confirmed either way: its reservations are kept,
    /// so that recovery (not this writer) decides about its objects.
    private var keepReservations = false
    private let emit: (FetchResult) -> Void

    private var results: [FetchResult] = []
    private var newOriginals: [OriginalRecord] = []
    private var sources: [SourceRecord] = []
    /// Content staged in this batch, by hash: the path it will get.
    private var stagedPaths: [String: String] = [:]
    /// Originals whose missing files this batch puts back, by hash: their paths.
    private var restoring: [String: String] = [:]
    /// Received bodies whose catalog lookups wait for the batch (`resolvePending`).
    private var pending: [PendingBody] = []

    /// A checked body, not yet told new or known: looked up with the rest of its batch, in one
    /// round trip to a remote catalog instead of one per URL.
    private struct PendingBody {
        /// Where its result and its source record are in the batch.
        let result: Int
        let source: Int
        let transfer: CompletedTransfer
        let file: StagingFile
        let sha256: String
        let bytes: Int64
        let format: ImageFormat
        /// The body's first bytes (`CompletedTransfer.Body.received`).
        let head: [UInt8]
    }

    static let batchLimit = 64

    init(store: OriginalStore, catalog: Catalog, journal: JournalWriter?, publishFirst: Bool = false,
         retry: ConnectionRetry = ConnectionRetry(), emit: @escaping (FetchResult) -> Void) {
        self.store = store
        self.catalog = catalog
        self.journal = journal
        self.publishFirst = publishFirst
        self.retry = retry
        self.emit = emit
    }

    var pendingCount: Int { results.count }

    /// Adds one finished transfer to the batch.
    func accept(_ transfer: CompletedTransfer) throws {
        var result = FetchResult(url: transfer.request.item.recordedURL, origin: transfer.request.item.origin, outcome: .failed, attempts: transfer.attempts)
        result.finalURL = transfer.finalURL
        result.warnings += transfer.warnings
        result.httpStatus = transfer.httpStatus
        result.contentType = transfer.contentType
        var source = SourceRecord(
            url: result.url, finalURL: transfer.finalURL, etag: transfer.etag, lastModified: transfer.lastModified,
            httpStatus: transfer.httpStatus, fetchedAt: Timestamp.iso8601(), outcome: .failed)

        switch transfer.body {
        case .failed(let reason):
            result.reason = reason
            result.retryAfter = transfer.retryAfter
        case .refused(let reason):
            result.outcome = .rejected
            result.reason = reason
        case .empty:
            result.outcome = .rejected
            result.reason = "empty body"
        case .notModified:
            try recordUnchanged(transfer.request.item, &result, &source)
        case .received(let file, let sha256, let bytes, let prefix):
            if let format = check(file, sha256: sha256, bytes: bytes, prefix: prefix, transfer: transfer, &result) {
                source.sha256 = sha256
                pending.append(PendingBody(result: results.count, source: sources.count, transfer: transfer,
                                           file: file, sha256: sha256, bytes: bytes, format: format, head: prefix))
            }
        }
        source.outcome = result.outcome
        source.reason = result.reason
        if source.sha256 == nil, try hasCopy(source.url, transfer.request.item) {
            // A failed refresh keeps the record of the archived copy.
        } else {
            sources.append(source)
        }
        results.append(result)
    }

    /// Whether a record of `url` names a copy: in the catalog, or in this batch (the
    /// same URL with another password, fetched in this run).
    private func hasCopy(_ url: String, _ item: FetchItem) throws -> Bool {
        if sources.contains(where: { $0.url == url && $0.sha256 != nil }) { return true }
        return try retry.run { try catalog.source(of: item) }?.sha256 != nil
    }

    private func recordUnchanged(_ item: FetchItem, _ result: inout FetchResult, _ source: inout SourceRecord) throws {
        result.outcome = .unchanged
        guard let previous = try retry.run({ try catalog.source(of: item) }), let sha256 = previous.sha256,
              let original = try retry.run({ try catalog.original(sha256: sha256) }) else {
            result.outcome = .failed
            result.reason = "server answered 304 Not Modified but the library has no copy of this URL; run without --refresh"
            return
        }
        source.sha256 = sha256
        source.etag = source.etag ?? previous.etag
        source.lastModified = source.lastModified ?? previous.lastModified
        fill(&result, with: original)
    }

    /// The Content-Type rules for a received body: its format, or nil when it is refused (its
    /// file dropped, `result` saying why). An accepted body is `.stored` until its batch's
    /// lookups say otherwise (`resolvePending`).
    private func check(
        _ file: StagingFile, sha256: String, bytes: Int64, prefix: [UInt8], transfer: CompletedTransfer,
        _ result: inout FetchResult
    ) -> ImageFormat? {
        result.bytes = bytes
        result.sha256 = sha256
        switch ContentTypeRules.decide(contentType: transfer.contentType, prefix: prefix, bodyBytes: bytes, file: file.path) {
        case .reject(let reason):
            store.discard(file)
            result.outcome = .rejected
            result.reason = reason
            return nil
        case .accept(let accepted, let warnings):
            result.warnings += warnings
            result.fileExtension = accepted.fileExtension
            result.outcome = .stored
            return accepted
        }
    }

    /// Tells the batch's received bodies new or known, with one lookup for all of them: a known
    /// one is a duplicate (or unchanged, the same bytes again for its URL); a new one gets its
    /// metadata read and a path, all of the batch's paths reserved at once. Each body's file is
    /// staged or dropped; when this throws, the files not yet dealt with are dropped.
    private func resolvePending() throws {
        guard !pending.isEmpty else { return }
        let bodies = pending
        pending.removeAll(keepingCapacity: true)
        var open = Set(bodies.map(\.result))
        defer { for body in bodies where open.contains(body.result) { store.discard(body.file) } }

        let known = try retry.run { try catalog.originals(sha256s: bodies.map(\.sha256)) }
        let again = bodies.filter { known[$0.sha256] != nil }.map(\.transfer.request.item)
        let previousSources = again.isEmpty ? [:] : try retry.run { try catalog.sources(urls: again.map(\.recordedURL)) }
        var new: [(body: PendingBody, metadata: PhotoMetadata?, dated: CaptureDate, stem: String)] = []
        var copies: [PendingBody] = []
        var firstOfContent = Set<String>()
        for body in bodies {
            if let existing = known[body.sha256] {
                // --refresh (with no validator to send, or a server that ignores them): the same
                // bytes again for this URL.
                let item = body.transfer.request.item
                var previous = previousSources[item.recordedURL]
                if previous?.sha256 == nil, item.recordedURL != item.url { previous = try retry.run { try catalog.source(of: item) } }
                results[body.result].outcome = previous?.sha256 == body.sha256 ? .unchanged : .duplicate
                fill(&results[body.result], with: existing)
                try restoreIfBroken(existing, from: body.file, lastModified: body.transfer.lastModified, &results[body.result])
                open.remove(body.result)
            } else if !firstOfContent.insert(body.sha256).inserted {
                copies.append(body)
            } else {
                let (metadata, dated, stem) = plan(body, &results[body.result])
                new.append((body, metadata, dated, stem))
            }
        }

        let paths = try reservePaths(for: new.map { ($0.body, $0.dated.folder, $0.stem) })
        for ((body, metadata, dated, _), path) in zip(new, paths) {
            // Its file's time: Last-Modified, else the capture time (the source file's own, imported).
            let fileTime = body.transfer.localFile?.modified
                ?? CaptureDate.fileTime(lastModified: body.transfer.lastModified, dated: dated, offset: metadata?.offsetTimeOriginal)
            if let fileTime, body.transfer.localFile == nil || !linked(body.file) { body.file.setModified(fileTime) }
            try store.stage(body.file, sha256: body.sha256)
            open.remove(body.result)
            stagedPaths[body.sha256] = path
            let record = OriginalRecord(
                sha256: body.sha256, path: path, bytes: body.bytes, contentType: body.format.mimeType,
                width: metadata?.width, height: metadata?.height, takenAt: dated.takenAt, datedBy: dated.source,
                make: metadata?.make, model: metadata?.model, lens: OriginalRecord.lens(of: metadata),
                exposure: OriginalRecord.exposure(of: metadata),
                gpsLatitude: metadata?.gps?.latitude, gpsLongitude: metadata?.gps?.longitude, gpsAltitude: metadata?.gps?.altitude,
                orientation: metadata?.orientation, addedAt: Timestamp.iso8601())
            newOriginals.append(record)
            fill(&results[body.result], with: record)
        }
        for body in copies {
            // The same new content twice in one batch: the first is the original.
            open.remove(body.result)
            store.discard(body.file)
            results[body.result].outcome = .duplicate
            results[body.result].path = stagedPaths[body.sha256]
            results[body.result].original = newOriginals.first { $0.sha256 == body.sha256 }
        }
        for body in bodies {
            sources[body.source].outcome = results[body.result].outcome
            sources[body.source].reason = results[body.result].reason
        }
    }

    /// Whether a staging file is a hard link to its source (`import --link`): its time is the source's already.
    private func linked(_ file: StagingFile) -> Bool {
        var info = stat()
        return fstat(file.descriptor, &info) == 0 && info.st_nlink > 1
    }

    /// A new content's metadata, capture date and file name stem.
    private func plan(_ body: PendingBody, _ result: inout FetchResult) -> (PhotoMetadata?, CaptureDate, String) {
        var metadata: PhotoMetadata?
        do {
            // A file whose body went partly elsewhere (`StagingFile.spill`) is as long as it is.
            metadata = try body.file.spill == nil
                ? MetadataReader.read(head: body.head, size: Int(body.bytes), path: body.file.path)
                : MetadataReader.read(path: body.file.path)
            result.warnings += metadata?.warnings.map { "metadata: \($0)" } ?? []
        } catch let error as MetadataError {
            result.warnings.append("metadata: \(error.reason)")
        } catch {
            result.warnings.append("metadata: \(error)")
        }
        if let local = body.transfer.localFile {
            let dated = CaptureDate.forFile(metadata: metadata, modified: local.modified)
            return (metadata, dated, LibraryPathPlanner.stem(fileName: local.path, sha256: body.sha256))
        }
        let dated = CaptureDate.forDownload(metadata: metadata, lastModified: body.transfer.lastModified)
        let stem = LibraryPathPlanner.stem(url: result.url, sha256: body.sha256, contentDisposition: body.transfer.contentDisposition)
        return (metadata, dated, stem)
    }

    /// A path for each new content, in order, reserved in the catalog: each one's first free
    /// choice (`LibraryPathPlanner.candidate`) that is not taken by a file or object already
    /// there (when the store can tell cheaply), nor, ignoring case, by a catalogued original or a
    /// path reserved for other content. All of a batch's choices are asked for at once; those
    /// refused ask for their next choice in the next round (one round for a batch whose names
    /// are all free).
    private func reservePaths(for contents: [(body: PendingBody, folder: String, stem: String)]) throws -> [String] {
        var choices = [Int](repeating: 1, count: contents.count)
        var paths = [String?](repeating: nil, count: contents.count)
        while case let waiting = paths.indices.filter({ paths[$0] == nil }), !waiting.isEmpty {
            var wanted: [PathReservation] = []
            for index in waiting {
                let (body, folder, stem) = contents[index]
                func candidate() -> String {
                    LibraryPathPlanner.candidate(folder: folder, stem: stem, fileExtension: body.format.fileExtension, choice: choices[index])
                }
                while store.existenceIsCheap, try store.exists(path: candidate()) { choices[index] += 1 }
                wanted.append(PathReservation(path: candidate(), sha256: body.sha256))
            }
            let granted = try retry.run { try catalog.reservePaths(wanted) }
            for (index, reservation) in zip(waiting, wanted) {
                if granted.contains(reservation) { paths[index] = reservation.path } else { choices[index] += 1 }
            }
        }
        return paths.map { $0! }
    }

    /// Puts back a catalogued original that is gone from the library (deleted by hand, lost to
    /// a disk) or holds other bytes (bit rot, an edit) with the same content, just downloaded
    /// (`OriginalPutBack`, at publish: damaged bytes are kept aside); drops it otherwise.
    private func restoreIfBroken(_ original: OriginalRecord, from file: StagingFile, lastModified: String?, _ result: inout FetchResult) throws {
        guard restoring[original.sha256] == nil else {
            store.discard(file)
            return
        }
        if try store.holdsIntact(original) {
            store.discard(file)
            return
        }
        let missing = try !store.exists(path: original.path)
        if let time = CaptureDate.fileTime(of: original, lastModified: lastModified) { file.setModified(time) }
        try store.stage(file, sha256: original.sha256)
        restoring[original.sha256] = original.path
        result.warnings.append("restored: " + (missing ? "\(original.path) was missing from the library"
            : "\(original.path) held other bytes than those recorded") + "; these bytes put it back")
        result.restoredOriginal = true
    }

    /// Reports a transfer the run could not record (it stopped on `error`), dropping its file.
    func reportUnrecorded(_ transfer: CompletedTransfer, because error: Error) {
        if case .received(let file, _, _, _) = transfer.body { store.discard(file) }
        var result = FetchResult(url: transfer.request.item.recordedURL, origin: transfer.request.item.origin, outcome: .failed, attempts: transfer.attempts)
        result.finalURL = transfer.finalURL
        result.httpStatus = transfer.httpStatus
        result.reason = "not recorded: the run stopped (\(error))"
        result.unrecorded = true
        emit(result)
    }

    private func fill(_ result: inout FetchResult, with original: OriginalRecord) {
        result.path = original.path
        result.sha256 = original.sha256
        result.bytes = original.bytes
        result.original = original
        if result.fileExtension == nil {
            result.fileExtension = (original.path as NSString).pathExtension
        }
    }

    /// Makes the batch durable and visible, then reports its results.
    /// On failure the batch's results are reported as failed, and the error is rethrown.
    func flush() throws {
        guard !results.isEmpty else { return }
        defer { resetBatch() }
        do {
            try resolvePending()
        } catch {
            for sha256 in Array(stagedPaths.keys) + Array(restoring.keys) { store.discardStaged(sha256: sha256) }
            reportBatch(failedWith: error)
            throw error
        }
        if publishFirst { return try flushPublishingFirst() }
        do {
            if !newOriginals.isEmpty || !restoring.isEmpty { try store.syncStaged() }
            try journal?(newOriginals, sources)
            try catalog.transaction {
                for original in newOriginals { try catalog.insertOriginal(original) }
                try catalog.upsertSources(sources)
            }
        } catch {
            for sha256 in Array(stagedPaths.keys) + Array(restoring.keys) { store.discardStaged(sha256: sha256) }
            reportBatch(failedWith: error)
            throw error
        }
        // Committed: from here a crash is finished by recovery, so publishing errors only warn.
        let (publishErrors, _, unavailable, asides) = publishBatch()
        for var result in results {
            noteAside(&result, asides)
            if let sha = result.sha256, let problem = publishErrors[sha], result.outcome == .stored || restoring[sha] != nil {
                result.warnings.append("recorded but not yet in place (\(problem)); the next run finishes it")
                result.notInPlace = problem
            }
            emit(result)
        }
        // Recorded, and finished by the next run; but no later upload would fare better.
        if let error = unavailable { throw error }
    }

    /// Publishes the batch's staged content side by side (originals restored through
    /// `OriginalPutBack`): the problems by hash, the hashes newly put in place, the first error
    /// that says the store is unavailable, and where damaged bytes a restore replaced were kept.
    private func publishBatch() -> (errors: [String: String], created: Set<String>, unavailable: Error?, asides: [String: String]) {
        let published = newOriginals.map { ($0.sha256, $0.path, false) } + restoring.map { ($0.key, $0.value, true) }
        let errors = LockedBox([String: String]())
        let created = LockedBox(Set<String>())
        let unavailable = LockedBox<Error?>(nil)
        let asides = LockedBox([String: String]())
        nonisolated(unsafe) let store = store
        // An upload waits on the network: a remote store's are made side by side.
        ParallelLoop.run(count: published.count, jobs: min(store.publishConcurrency, published.count)) { index in
            let (sha256, path, restores) = published[index]
            do {
                if restores {
                    switch try OriginalPutBack.run(store: store, sha256: sha256, path: path) {
                    case .created: created.update { _ = $0.insert(sha256) }
                    case .alreadyPresent: break
                    case .replaced(let aside):
                        created.update { _ = $0.insert(sha256) }
                        asides.update { $0[sha256] = aside }
                    }
                } else if try store.publish(sha256: sha256, to: path) == .created {
                    created.update { _ = $0.insert(sha256) }
                }
            } catch {
                errors.update { $0[sha256] = "\(error)" }
                if (error as? StoreUnavailable)?.storeIsUnavailable == true { unavailable.update { $0 = $0 ?? error } }
            }
        }
        return (errors.current, created.current, unavailable.current, asides.current)
    }

    /// Says where the damaged bytes a restore replaced were kept.
    private func noteAside(_ result: inout FetchResult, _ asides: [String: String]) {
        guard result.restoredOriginal, let sha256 = result.sha256, let aside = asides[sha256] else { return }
        result.warnings.append("the damaged file is kept at \(aside)")
        result.damagedCopy = aside
    }

    /// `flush` for a shared catalog: publish, then commit what was published.
    private func flushPublishingFirst() throws {
        do {
            if !newOriginals.isEmpty || !restoring.isEmpty { try store.syncStaged() }
        } catch {
            for sha256 in Array(stagedPaths.keys) + Array(restoring.keys) { store.discardStaged(sha256: sha256) }
            reportBatch(failedWith: error)
            throw error
        }
        let (publishErrors, created, unavailable, asides) = publishBatch()
        for sha256 in publishErrors.keys { store.discardStaged(sha256: sha256) }
        // Not in place, so not recorded: the URL stays to be fetched again.
        let kept = newOriginals.filter { publishErrors[$0.sha256] == nil }
        let failedURLs = Set(results.filter { $0.sha256.map { publishErrors[$0] != nil } ?? false }.map(\.url))
        var catalogued: [String: OriginalRecord] = [:]
        do {
            // Safe to make again after a lost answer: insert-if-absent finds its own row (same
            // path: nothing removed below) and the sources are upserts.
            try retry.run {
                catalogued = [:]
                try catalog.transaction {
                    let inserted = try catalog.insertOriginalsIfAbsent(kept)
                    // Another writer catalogued the same content meanwhile: that one is the original.
                    // A row at this batch's own path (reserved for this writer alone) is this
                    // batch's, from an attempt whose answer was lost: stored, not a duplicate.
                    let lost = kept.map(\.sha256).filter { !inserted.contains($0) }
                    if !lost.isEmpty {
                        catalogued = try catalog.originals(sha256s: lost).filter { $0.value.path != stagedPaths[$0.key] }
                    }
                    // A URL whose content another writer catalogued meanwhile is recorded as
                    // what it is reported as: a duplicate of that original.
                    try catalog.upsertSources(sources.filter { !failedURLs.contains($0.url) }.map { source in
                        var source = source
                        if source.outcome == .stored, let sha256 = source.sha256, catalogued[sha256] != nil { source.outcome = .duplicate }
                        return source
                    })
                }
            }
        } catch {
            if ConnectionRetry.isConnectionLoss(error) {
                // The commit may or may not have happened: the objects stay, at paths still
                // reserved for this writer, and recovery keeps those whose rows exist.
                keepReservations = true
            } else {
                // Not recorded: what this batch put in place is nobody's, unless another writer
                // (or reindex) catalogued an original at that path meanwhile; when that cannot be
                // told, the reservations stay and recovery decides.
                for original in kept where created.contains(original.sha256) {
                    do {
                        if try retry.run({ try catalog.original(path: original.path) }) == nil { try store.remove(path: original.path) }
                    } catch {
                        keepReservations = true
                    }
                }
            }
            reportBatch(failedWith: error)
            throw error
        }
        for (sha256, existing) in catalogued {
            if let path = stagedPaths[sha256], created.contains(sha256), path != existing.path { try? store.remove(path: path) }
        }
        for var result in results {
            noteAside(&result, asides)
            if let sha = result.sha256, let problem = publishErrors[sha], result.outcome == .stored || restoring[sha] != nil {
                if result.outcome == .stored {
                    result.outcome = .failed
                    result.reason = "could not store in \(store.displayName): \(problem)"
                    result.path = nil
                } else {
                    result.warnings.append("could not put the original back (\(problem))")
                    result.notInPlace = problem
                }
            } else if let sha = result.sha256, let existing = catalogued[sha], result.outcome == .stored {
                result.outcome = .duplicate
                fill(&result, with: existing)
            }
            emit(result)
        }
        if let error = unavailable { throw error }
    }

    private func reportBatch(failedWith error: Error) {
        for var result in results {
            if result.outcome == .stored || result.outcome == .duplicate || result.outcome == .unchanged {
                result.outcome = .failed
                result.reason = "could not record in the library: \(error)"
                result.path = nil
            }
            result.unrecorded = true
            emit(result)
        }
    }

    private func resetBatch() {
        results.removeAll(keepingCapacity: true)
        newOriginals.removeAll(keepingCapacity: true)
        sources.removeAll(keepingCapacity: true)
        stagedPaths.removeAll(keepingCapacity: true)
        restoring.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        if !keepReservations { try? catalog.releaseReservations() }
    }
}
