import CShim
import Foundation

/// Makes thumbnail sets for a list of originals, in parallel over `options.jobs`
/// worker threads, each running one image at a time (libvips concurrency 1); the
/// decodes of all workers share one memory budget (`options.maxMemory`).
///
/// Incremental: a thumbnail whose file is newer than its original, of the size the
/// catalog recorded, made with the same settings (`ThumbnailOptions.settings`), is
/// kept unless `options.force`. Events are handed to `consume` on the calling
/// thread, one at a time, so it may write to a catalog directly.
public final class ThumbnailEngine: @unchecked Sendable {
    public let libraryRoot: String
    public let options: ThumbnailOptions
    /// Where the originals are read from: a local store's files directly; a remote store's
    /// originals whose thumbnails are stale are copied to a temporary file, rendered, dropped.
    /// Without one (in-process tests of the engine alone), LIBRARY/originals/ by path.
    var store: OriginalStore?
    /// Where the thumbnails are kept (LIBRARY/thumbnails/ unless the updater says otherwise).
    let thumbnails: ThumbnailStore
    /// Shared work (a shared catalog): only originals this worker claims are made.
    var claims: ThumbnailClaims?
    /// Seconds a claim lasts unless renewed (renewed every third of it).
    var lease: Double = 60
    /// Originals offered to `claims` at once.
    var claimBatch = 16
    private let renderer: ThumbnailRenderer
    private let condition = NSCondition()
    private var pending: [ThumbnailEvent] = []
    private var nextIndex = 0
    private var runningWorkers = 0
    private var cancelled = false
    private var feed: ThumbnailClaimFeed?
    /// The consumer, when the calling thread does the work itself (no thread could be started).
    private var inline: (([ThumbnailEvent]) -> Void)?
    var launcher = ThreadLauncher.system
    /// What every worker's decodes share.
    var budget: ThumbnailMemoryBudget { renderer.budget }
    /// Stale originals another worker made (or failed) while this one ran.
    public private(set) var settledElsewhere = 0

    public init(libraryRoot: String, options: ThumbnailOptions, thumbnails: ThumbnailStore? = nil) {
        self.libraryRoot = libraryRoot
        self.options = options
        let thumbnails = thumbnails ?? LocalThumbnailStore(libraryRoot: libraryRoot)
        self.thumbnails = thumbnails
        renderer = ThumbnailRenderer(options: options, libraryRoot: thumbnails.renderFolder,
                                     budget: ThumbnailMemoryBudget(total: options.maxMemory))
    }

    /// Processes every source; `recorded` holds the thumbnails the catalog already
    /// lists, by path; up-to-date files missing from it are reported as `.found`.
    /// With `claims`, the sources are judged here first and only the stale ones are offered.
    public func run(_ sources: [ThumbnailSource], recorded: [String: ThumbnailRecord], consume: (ThumbnailEvent) throws -> Void) throws {
        try VipsRuntime.start()
        var items: [(source: ThumbnailSource, plan: Plan?)] = sources.map { ($0, nil) }
        if let claims {
            var stale: [(source: ThumbnailSource, plan: Plan?)] = []
            for source in sources where !isCancelled {
                let plan = self.plan(source, recorded: recorded)
                guard plan.stale.isEmpty else {
                    stale.append((source, plan))
                    continue
                }
                for event in plan.events + [.finished(source)] { try consume(event) }
            }
            items = stale
            let feed = ThumbnailClaimFeed(count: stale.count, path: { stale[$0].source.path }, claims: claims,
                                          lease: lease, batch: claimBatch, launcher: launcher)
            feed.onWait = { [self] in deliver([.waitingForOthers]) }
            feed.onSettled = { [self] indices in deliver(indices.map { .finished(stale[$0].source) }) }
            condition.withLock { self.feed = feed }
        }
        let work = items
        defer {
            if let feed = condition.withLock({ self.feed }) {
                feed.stop()
                settledElsewhere = feed.settledElsewhere
                condition.withLock { self.feed = nil }
            }
        }
        condition.lock()
        nextIndex = cancelled ? Int.max : 0
        pending = []
        let wanted = min(options.jobs, max(work.count, 1))
        runningWorkers = wanted
        condition.unlock()
        var started = 0
        while started < wanted, launcher.start(name: "shoebox-thumbs", stackSize: 4 << 20, { [self] in self.work(work, recorded: recorded) }) {
            started += 1
        }
        if started < wanted {
            condition.withLock { runningWorkers -= wanted - started }
        }
        var consumerError: Error?
        if started == 0 {
            // The system refused every thread: make them all here, handing each item's events on
            // as it is done (shared work must record what it finished before it waits for others).
            condition.withLock { runningWorkers = 1 }
            withoutActuallyEscaping(consume) { consume in
                condition.withLock {
                    inline = { [self] events in
                        for event in events where consumerError == nil {
                            do { try consume(event) } catch { consumerError = error; stop(); feed?.abandon() }
                        }
                    }
                }
                self.work(work, recorded: recorded)
                condition.withLock { inline = nil }
            }
        }
        condition.lock()
        while true {
            while pending.isEmpty && runningWorkers > 0 { condition.wait() }
            if pending.isEmpty && runningWorkers == 0 { break }
            let batch = pending
            pending = []
            condition.unlock()
            for event in batch where consumerError == nil {
                // Nothing more is recorded: threads waiting for other workers' originals stop too.
                do { try consume(event) } catch { consumerError = error; stop(); condition.withLock { feed }?.cancel() }
            }
            condition.lock()
        }
        condition.unlock()
        if let consumerError { throw consumerError }
        if let error = condition.withLock({ feed?.error }) { throw error }
    }

    /// Makes workers stop after the image they are on (safe from any thread).
    public func cancel() {
        condition.lock()
        cancelled = true
        let feed = feed
        condition.unlock()
        feed?.cancel()
        stop()
        // Decodes waiting for memory give up: only those in progress are finished.
        renderer.budget.cancel()
    }

    public var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    private func stop() {
        condition.lock()
        nextIndex = Int.max
        condition.unlock()
    }

    /// Hands events to the consumer: the calling thread's loop, or at once when it does the work itself.
    private func deliver(_ events: [ThumbnailEvent]) {
        condition.lock()
        if let inline {
            condition.unlock()
            inline(events)
            return
        }
        pending.append(contentsOf: events)
        condition.signal()
        condition.unlock()
    }

    private func work(_ work: [(source: ThumbnailSource, plan: Plan?)], recorded: [String: ThumbnailRecord]) {
        while let index = claim(limit: work.count) {
            let (source, plan) = work[index]
            let events = (plan.map { render(source, plan: $0) } ?? process(source, recorded: recorded)) + [.finished(source)]
            VipsRuntime.releaseFreedMemory()
            deliver(events)
        }
        condition.lock()
        runningWorkers -= 1
        condition.signal()
        condition.unlock()
    }

    /// The next item to work on: in order, or as the shared claims hand them out.
    private func claim(limit: Int) -> Int? {
        condition.lock()
        guard nextIndex < limit else {
            condition.unlock()
            return nil
        }
        if let feed {
            condition.unlock()
            return feed.next()
        }
        defer { condition.unlock() }
        nextIndex += 1
        return nextIndex - 1
    }

    /// What one original needs: the events known without rendering, and its stale thumbnails.
    struct Plan {
        var events: [ThumbnailEvent] = []
        var stale: [ThumbnailTarget] = []
        /// The original's size as found, for an original in the library folder (nil for one in a
        /// bucket: its local copy's size is taken when it is rendered).
        var originalBytes: Int64?
    }

    /// The events for one original: which thumbnails are stale, then one render of them.
    func process(_ source: ThumbnailSource, recorded: [String: ThumbnailRecord]) -> [ThumbnailEvent] {
        let plan = plan(source, recorded: recorded)
        return plan.stale.isEmpty ? plan.events : render(source, plan: plan)
    }

    /// Which thumbnails of `source` are stale. A local thumbnail is up to date when its file is
    /// newer than the original's; a remote one (no comparable times) when the catalog row of
    /// its path names this original's SHA-256. Either must be of the size and settings recorded.
    func plan(_ source: ThumbnailSource, recorded: [String: ThumbnailRecord]) -> Plan {
        var targets: [ThumbnailTarget] = []
        for size in options.sizes {
            guard let path = ThumbnailLayout.path(forOriginal: source.path, size: size, format: options.format) else {
                return Plan(events: [.failed(source, .outsideOriginals(source.path))])
            }
            targets.append(ThumbnailTarget(size: size, path: path))
        }
        var plan = Plan()
        var originalTime: Int64 = 0
        if store == nil || store is LocalOriginalStore {
            // A local file's time to the nanosecond: a thumbnail must be newer than it.
            var info = stat()
            guard stat(libraryRoot + "/" + source.path, &info) == 0 else {
                return Plan(events: [.failed(source, .originalMissing(source.path))])
            }
            plan.originalBytes = Int64(info.st_size)
            originalTime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        }
        for target in targets {
            let stored = options.force ? nil : thumbnails.stored(target.path)
            let record = recorded[target.path]
            // A recorded thumbnail of another size than written was cut short or overwritten.
            let sameAsRecorded = record.map { ($0.settings ?? "") == options.settings && $0.bytes == stored?.bytes } ?? true
            let current: Bool
            if let stored, let modified = stored.modified, thumbnails.comparesTimes {
                current = modified > originalTime
            } else {
                current = record?.originalSHA256 == source.sha256
            }
            guard let stored, current, sameAsRecorded else {
                plan.stale.append(target)
                continue
            }
            if record == nil {
                // A file the catalog does not know: record it, or remake it if unreadable.
                guard let found = describeExisting(target, of: source) else {
                    plan.stale.append(target)
                    continue
                }
                plan.events.append(.found(found))
            }
        }
        if plan.stale.isEmpty { plan.events.append(.upToDate(source)) }
        return plan
    }

    /// Renders what `plan` found stale (reading a remote original through a local copy).
    func render(_ source: ThumbnailSource, plan: Plan) -> [ThumbnailEvent] {
        guard let store, !(store is LocalOriginalStore) else {
            // `plan` found the file and its size.
            return plan.events + render(source, file: nil, size: plan.originalBytes ?? -1, stale: plan.stale)
        }
        do {
            // One GET: the copy's size is the object's (no HEAD first).
            return try plan.events + store.withLocalFile(path: source.path) { file in
                var info = stat()
                return render(source, file: file, size: stat(file, &info) == 0 ? Int64(info.st_size) : -1, stale: plan.stale)
            }
        } catch S3Error.noSuchKey {
            return plan.events + [.failed(source, .originalMissing(store.location(of: source.path)))]
        } catch S3Error.http(let status, _, _, _) where status == 404 {
            return plan.events + [.failed(source, .originalMissing(store.location(of: source.path)))]
        } catch {
            return plan.events + [.failed(source, .unreadable(path: store.location(of: source.path), reason: "\(error)"))]
        }
    }

    /// Renders the `stale` thumbnails of `source` (from `file` when it is not in the library folder).
    private func render(_ source: ThumbnailSource, file: String?, size: Int64, stale: [ThumbnailTarget]) -> [ThumbnailEvent] {
        var events: [ThumbnailEvent] = []
        if let changed = changedOriginal(source, file: file, size: size, overwriting: stale) {
            return [.failed(source, changed)]
        }
        do {
            let made = try renderer.render(original: source.path, file: file, targets: stale)
            let now = Timestamp.iso8601()
            for (index, item) in made.enumerated() {
                do {
                    try thumbnails.keep(item.target.path, format: options.format)
                } catch {
                    for rest in made[index...] { thumbnails.discardRendered(rest.target.path) }
                    throw error
                }
                let record = ThumbnailRecord(
                    originalSHA256: source.sha256, size: item.target.size.name, path: item.target.path,
                    format: options.format.rawValue, width: item.width, height: item.height, bytes: item.bytes,
                    createdAt: now, settings: options.settings)
                events.append(.made(record, original: source.path, milliseconds: item.milliseconds))
            }
        } catch is ThumbnailMemoryBudget.Cancelled {
            // Interrupted while waiting for memory: not a failure, the next run makes them.
        } catch let error as ThumbnailError {
            events.append(.failed(source, error))
        } catch {
            events.append(.failed(source, .decodeFailed(path: source.path, reason: "\(error)")))
        }
        return events
    }

    /// Why the original no longer holds the archived bytes, if it does not. Thumbnails made
    /// from damaged bytes must not replace good ones, which may be the only preview left:
    /// the size is compared always, the hash when a thumbnail file would be overwritten.
    private func changedOriginal(_ source: ThumbnailSource, file: String?, size: Int64, overwriting stale: [ThumbnailTarget]) -> ThumbnailError? {
        if let archived = source.bytes, archived != size {
            return .originalChanged(path: source.path, detail: "\(size) bytes, archived with \(archived)")
        }
        guard stale.contains(where: { thumbnails.stored($0.path) != nil }) else { return nil }
        guard let hashed = try? SHA256Hasher.hashFile(atPath: file ?? libraryRoot + "/" + source.path) else {
            return nil  // unreadable: the render reports it
        }
        return hashed.sha256 == source.sha256 ? nil : .originalChanged(path: source.path, detail: "its SHA-256 differs from the archived one")
    }

    /// A catalog record for an existing thumbnail file, from its header.
    private func describeExisting(_ target: ThumbnailTarget, of source: ThumbnailSource) -> ThumbnailRecord? {
        guard thumbnails.isLocal else { return nil }  // an object is made again rather than downloaded
        let path = libraryRoot + "/" + target.path
        guard let header = shim_vips_open_header(path) else {
            _ = VipsRuntime.takeError()
            return nil
        }
        defer { shim_vips_unref(header) }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return ThumbnailRecord(
            originalSHA256: source.sha256, size: target.size.name, path: target.path, format: options.format.rawValue,
            width: Int(shim_vips_width(header)), height: Int(shim_vips_height(header)),
            bytes: Int64(info.st_size), createdAt: Timestamp.iso8601(info.st_mtim.tv_sec), settings: options.settings)
    }

}
