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
    private let renderer: ThumbnailRenderer
    private let condition = NSCondition()
    private var pending: [ThumbnailEvent] = []
    private var nextIndex = 0
    private var runningWorkers = 0
    private var cancelled = false
    var launcher = ThreadLauncher.system
    /// What every worker's decodes share.
    var budget: ThumbnailMemoryBudget { renderer.budget }

    public init(libraryRoot: String, options: ThumbnailOptions) {
        self.libraryRoot = libraryRoot
        self.options = options
        renderer = ThumbnailRenderer(options: options, libraryRoot: libraryRoot,
                                     budget: ThumbnailMemoryBudget(total: options.maxMemory))
    }

    /// Processes every source; `recorded` holds the thumbnails the catalog already
    /// lists, by path; up-to-date files missing from it are reported as `.found`.
    public func run(_ sources: [ThumbnailSource], recorded: [String: ThumbnailRecord], consume: (ThumbnailEvent) throws -> Void) throws {
        try VipsRuntime.start()
        condition.lock()
        nextIndex = cancelled ? Int.max : 0
        pending = []
        let wanted = min(options.jobs, max(sources.count, 1))
        runningWorkers = wanted
        condition.unlock()
        var started = 0
        while started < wanted, launcher.start(name: "shoebox-thumbs", stackSize: 4 << 20, { [self] in work(sources, recorded: recorded) }) {
            started += 1
        }
        if started < wanted {
            condition.withLock { runningWorkers -= wanted - started }
        }
        if started == 0 {
            // The system refused every thread: make them all here, then hand the events on.
            condition.withLock { runningWorkers = 1 }
            work(sources, recorded: recorded)
        }
        var consumerError: Error?
        condition.lock()
        while true {
            while pending.isEmpty && runningWorkers > 0 { condition.wait() }
            if pending.isEmpty && runningWorkers == 0 { break }
            let batch = pending
            pending = []
            condition.unlock()
            for event in batch where consumerError == nil {
                do { try consume(event) } catch { consumerError = error; stop() }
            }
            condition.lock()
        }
        condition.unlock()
        if let consumerError { throw consumerError }
    }

    /// Makes workers stop after the image they are on (safe from any thread).
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.unlock()
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

    private func work(_ sources: [ThumbnailSource], recorded: [String: ThumbnailRecord]) {
        while let index = claim(limit: sources.count) {
            let events = process(sources[index], recorded: recorded) + [.finished(sources[index])]
            VipsRuntime.releaseFreedMemory()
            condition.lock()
            pending.append(contentsOf: events)
            condition.signal()
            condition.unlock()
        }
        condition.lock()
        runningWorkers -= 1
        condition.signal()
        condition.unlock()
    }

    private func claim(limit: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard nextIndex < limit else { return nil }
        nextIndex += 1
        return nextIndex - 1
    }

    /// The events for one original: which thumbnails are stale, then one render of them.
    func process(_ source: ThumbnailSource, recorded: [String: ThumbnailRecord]) -> [ThumbnailEvent] {
        var targets: [ThumbnailTarget] = []
        for size in options.sizes {
            guard let path = ThumbnailLayout.path(forOriginal: source.path, size: size, format: options.format) else {
                return [.failed(source, .outsideOriginals(source.path))]
            }
            targets.append(ThumbnailTarget(size: size, path: path))
        }
        let originalBytes: Int64, originalTime: Int64
        if let store, !(store is LocalOriginalStore) {
            let found: StoredOriginal
            do {
                guard let info = try store.info(path: source.path) else {
                    return [.failed(source, .originalMissing(store.location(of: source.path)))]
                }
                found = info
            } catch {
                return [.failed(source, .unreadable(path: store.location(of: source.path), reason: "\(error)"))]
            }
            originalBytes = found.bytes
            originalTime = Int64(found.modified) * 1_000_000_000
        } else {
            // A local file's time to the nanosecond: a thumbnail must be newer than it.
            var info = stat()
            guard stat(libraryRoot + "/" + source.path, &info) == 0 else {
                return [.failed(source, .originalMissing(source.path))]
            }
            originalBytes = Int64(info.st_size)
            originalTime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        }
        var events: [ThumbnailEvent] = []
        var stale: [ThumbnailTarget] = []
        for target in targets {
            var info = stat()
            let exists = !options.force && stat(libraryRoot + "/" + target.path, &info) == 0
            let time = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            // A recorded thumbnail of another size than written was cut short or overwritten.
            let sameAsRecorded = recorded[target.path].map { ($0.settings ?? "") == options.settings && $0.bytes == Int64(info.st_size) } ?? true
            guard exists, time > originalTime, sameAsRecorded else {
                stale.append(target)
                continue
            }
            if recorded[target.path] == nil {
                // A file the catalog does not know: record it, or remake it if unreadable.
                guard let record = describeExisting(target, of: source) else {
                    stale.append(target)
                    continue
                }
                events.append(.found(record))
            }
        }
        guard !stale.isEmpty else { return events + [.upToDate(source)] }
        guard let store, !(store is LocalOriginalStore) else { return events + render(source, file: nil, size: originalBytes, stale: stale) }
        do {
            return try events + store.withLocalFile(path: source.path) { file in
                render(source, file: file, size: originalBytes, stale: stale)
            }
        } catch {
            return events + [.failed(source, .unreadable(path: store.location(of: source.path), reason: "\(error)"))]
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
            for item in made {
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
        guard stale.contains(where: { access(libraryRoot + "/" + $0.path, F_OK) == 0 }) else { return nil }
        guard let hashed = try? SHA256Hasher.hashFile(atPath: file ?? libraryRoot + "/" + source.path) else {
            return nil  // unreadable: the render reports it
        }
        return hashed.sha256 == source.sha256 ? nil : .originalChanged(path: source.path, detail: "its SHA-256 differs from the archived one")
    }

    /// A catalog record for an existing thumbnail file, from its header.
    private func describeExisting(_ target: ThumbnailTarget, of source: ThumbnailSource) -> ThumbnailRecord? {
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
