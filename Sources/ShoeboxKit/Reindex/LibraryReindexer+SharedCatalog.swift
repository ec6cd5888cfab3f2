import Foundation

/// `reindex` on a shared catalog (PostgreSQL): the database is durable itself and keeps no
/// journal, so nothing is rebuilt from one; what reindex does there is adopt what the store
/// holds and the catalog lacks. Dead writers' uncommitted objects are removed first (the
/// rule of `LibraryRecovery`); then every original under originals/ is listed page by page,
/// and each one the catalog has no row for is recorded from the object itself: the SHA-256 it
/// carries (else its streamed hash), its format from its first bytes, its metadata from a
/// ranged read, inserted only if absent. Rows are never removed (verify reports catalogued
/// originals that are missing). Runs beside writers: it takes no lock.
extension LibraryReindexer {
    /// Objects looked at per step: listed, then checked and recorded side by side.
    static let sharedStep = 256

    func runOnSharedCatalog(start: Date) throws -> ReindexReport {
        let library = try Library.openForWriting(configuration, creating: false)
        defer { withExtendedLifetime(library) {} }
        let store = try library.store()
        let catalog = try library.openCatalog()
        defer { catalog.close() }
        var report = ReindexReport()
        let recovery = try library.recover(catalog: catalog)
        report.tempFilesRemoved = recovery.partialsRemoved + recovery.dropped
        let remote: OriginalStore? = store is LocalOriginalStore ? nil : store

        var pending: [LibraryFile] = []
        func adopt() throws {
            try stopIfCancelled()
            let files = pending
            pending.removeAll(keepingCapacity: true)
            try adoptStep(files, store: store, remote: remote, catalog: catalog, report: &report)
        }
        if let remote {
            try remote.list(under: LibraryLayout.originalsFolder) { object in
                pending.append(LibraryFile(stored: object))
                if pending.count >= Self.sharedStep { try adopt() }
            }
        } else {
            let listing = LibraryFile.scan(LibraryLayout.originalsFolder, in: layout)
            report.unreadableFolders = listing.unreadableFolders
            report.nonUTF8Names = listing.files.filter { !$0.hasUTF8Name }.map(\.path)
            report.notRegularFiles = listing.files.filter { $0.hasUTF8Name && !$0.isRegular }.map(\.path)
            for file in listing.files where file.hasUTF8Name && file.isRegular {
                pending.append(file)
                if pending.count >= Self.sharedStep { try adopt() }
            }
        }
        try adopt()
        report.sources = try catalog.countSources()
        report.duplicateFiles.sort()
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    /// Checks one step of listed files against the catalog and records the ones it lacks.
    private func adoptStep(_ files: [LibraryFile], store: OriginalStore, remote: OriginalStore?, catalog: Catalog,
                           report: inout ReindexReport) throws {
        var unknown: [LibraryFile] = []
        var lensless: [(file: LibraryFile, sha256: String)] = []
        let shared = catalog as? PostgresCatalog
        for file in files {
            if let catalogued = try catalog.original(path: file.path) {
                report.originalsFromJournal += 1  // already catalogued
                if catalogued.lens == nil || catalogued.exposure == nil { lensless.append((file, catalogued.sha256)) }
            } else if try shared?.isReserved(file.path) == true {
                // A writer's batch in flight (published, not yet committed): its own to record,
                // or recovery's to remove if that writer died. Never adopted from under it.
                continue
            } else {
                unknown.append(file)
            }
        }
        try recordLenses(lensless, remote: remote, catalog: catalog)
        guard !unknown.isEmpty else { return }
        let listed = unknown
        // Hashing and metadata are the slow part: side by side.
        let found = LockedBox([Int: (record: OriginalRecord?, unreadable: Bool, hashed: Int64)]())
        let failure = LockedBox<Error?>(nil)
        let layout = layout
        nonisolated(unsafe) let remote = remote
        ParallelLoop.run(count: listed.count, jobs: jobs) { index in
            let file = listed[index]
            do {
                let hashed: (sha256: String, bytes: Int64)
                if let remote {
                    hashed = try Self.remoteHash(file, in: remote)
                } else {
                    hashed = try SHA256Hasher.hashFile(atPath: layout.absolute(file.path))
                }
                let record = try sniff(file, remote: remote).map { recordFromFile(file, sha256: hashed.sha256, format: $0, remote: remote) }
                found.update { $0[index] = (record, false, hashed.bytes) }
            } catch S3Error.noSuchKey {
                return  // removed since the listing
            } catch where remote != nil {
                failure.update { $0 = $0 ?? error }  // the store failed: stop rather than skip objects
            } catch {
                found.update { $0[index] = (nil, true, 0) }
            }
        }
        if let error = failure.current { throw error }
        for (index, file) in unknown.enumerated() {
            guard let result = found.current[index] else { continue }
            report.bytesHashed += result.hashed
            if result.unreadable {
                report.unreadableFiles.append(file.path)
            } else if let record = result.record {
                if try catalog.insertOriginalIfAbsent(record) {
                    report.originalsFromFiles += 1
                } else {
                    report.duplicateFiles.append(file.path)  // the same bytes are catalogued at another path
                }
            } else {
                report.notImages.append(file.path)
            }
        }
    }

    /// Reads the lens and exposure of originals catalogued before they were (from the file, or
    /// a ranged read of the object), side by side, and records them. One that cannot be read now (the
    /// store failing) stays not known, for the next reindex.
    private func recordLenses(_ originals: [(file: LibraryFile, sha256: String)], remote: OriginalStore?, catalog: Catalog) throws {
        guard !originals.isEmpty, let readMetadata else { return }
        let lenses = LockedBox([Int: (lens: String, exposure: String)]())
        let layout = layout
        nonisolated(unsafe) let remote = remote
        ParallelLoop.run(count: originals.count, jobs: jobs) { index in
            let path = originals[index].file.path
            guard let read = try? remote.map({ try MetadataReader.read(store: $0, path: path) }) ?? readMetadata(layout.absolute(path)) else { return }
            let values = (OriginalRecord.lens(of: read), OriginalRecord.exposure(of: read))
            lenses.update { $0[index] = values }
        }
        for (index, values) in lenses.current.sorted(by: { $0.key < $1.key }) {
            try catalog.recordMetadata(lens: values.lens, exposure: values.exposure, sha256: originals[index].sha256)
        }
    }
}
