import Foundation

/// `verify --repair`: puts back the right bytes of originals verify found missing, cut short
/// or changed, from where they came: each recorded source in turn (the newest first), asked
/// for whole (no conditional request), accepted only when what arrives hashes to the
/// catalogued SHA-256; a `file://` source (an imported photo) when its file still holds those
/// bytes; or the staged copy an interrupted run left. The bytes go in through
/// `OriginalPutBack`: staged and synced first, the damaged file kept aside, never good bytes
/// replaced, never an original deleted. The catalog is not changed.
///
/// Runs on a library opened for writing (the writer's lock held, recovery done), and looks
/// at each original again before anything is fetched: one a writer mended since verify read
/// it is left alone.
public struct OriginalRepairer {
    public let library: Library
    public let catalog: Catalog
    /// How sources are downloaded (timeouts, retries, TLS, headers): fetch's own transport.
    /// Bodies larger than the largest original being repaired are refused as they arrive.
    public var options: FetchOptions
    /// Called after each original is dealt with.
    public var progress: ((RepairOutcome) -> Void)?
    /// For tests: when set, the clock for the damaged copies' folder name.
    var time: () -> time_t = { Glibc.time(nil) }

    public init(library: Library, catalog: Catalog, options: FetchOptions = FetchOptions()) {
        self.library = library
        self.catalog = catalog
        self.options = options
    }

    /// Repairs `broken` (catalog records verify reported missing, size- or hash-mismatched).
    /// Throws only when the library itself fails (store unavailable, disk full, catalog gone);
    /// a source that fails is an attempt in its original's outcome.
    public func run(_ broken: [OriginalRecord]) throws -> [RepairOutcome] {
        let store = try library.store()
        var outcomes: [RepairOutcome?] = Array(repeating: nil, count: broken.count)
        var wanted: [(index: Int, sources: [String])] = []
        let staged = Set(try store.pendingStaged())
        for (index, record) in broken.enumerated() {
            if try Self.isIntact(record, in: store) {
                outcomes[index] = RepairOutcome(record: record, result: .alreadyIntact)
                progress?(outcomes[index]!)
                continue
            }
            // Content a crashed run staged and recovery could not put in place (other bytes in the way).
            if staged.contains(record.sha256), store.stagedContentMatches(sha256: record.sha256) {
                outcomes[index] = try putBack(record, source: "its staged copy in .tmp/", store: store)
                progress?(outcomes[index]!)
                continue
            }
            // Every URL that ever gave these bytes (a URL that gives newer ones now is tried too:
            // its server may still have these), the most recently fetched first.
            let sources = try catalog.sourceVersions(sha256: record.sha256).map(\.url)
            wanted.append((index, sources))
        }
        var attempts: [Int: [RepairOutcome.Attempt]] = [:]
        // Local files first (imported originals): no download needed.
        var remaining: [(index: Int, sources: [String])] = []
        for (index, sources) in wanted {
            var left = sources[...]
            while let source = left.first, source.hasPrefix("file://") {
                left = left.dropFirst()
                do {
                    outcomes[index] = try restore(broken[index], fromFile: source, store: store)
                    break
                } catch let error as RepairSourceError {
                    attempts[index, default: []].append(RepairOutcome.Attempt(source: source, reason: error.reason))
                }
            }
            if outcomes[index] != nil { progress?(outcomes[index]!); continue }
            remaining.append((index, Array(left)))
        }
        try download(remaining, broken: broken, store: store, attempts: &attempts, outcomes: &outcomes)
        return broken.indices.map { index in
            outcomes[index] ?? RepairOutcome(record: broken[index], result: .notRepaired(attempts: attempts[index] ?? []))
        }
    }

    /// Whether the original at `record.path` has its recorded size and SHA-256.
    static func isIntact(_ record: OriginalRecord, in store: OriginalStore) throws -> Bool {
        guard let present = try store.info(path: record.path), present.bytes == record.bytes else { return false }
        return try OriginalPutBack.holds(store, path: record.path, sha256: record.sha256)
    }

    /// Downloads each original's sources one after another (several originals at once) until
    /// one gives the recorded bytes.
    private func download(_ wanted: [(index: Int, sources: [String])], broken: [OriginalRecord], store: OriginalStore,
                          attempts: inout [Int: [RepairOutcome.Attempt]], outcomes: inout [RepairOutcome?]) throws {
        var queue: [(index: Int, sources: ArraySlice<String>)] = []
        for (index, sources) in wanted {
            if sources.isEmpty { continue }
            queue.append((index, sources[...]))
        }
        guard !queue.isEmpty else { return }
        var engineOptions = options
        engineOptions.maxSize = max(1, queue.map { broken[$0.index].bytes }.max() ?? 1)
        let engine = try TransferEngine(options: engineOptions, staging: store)
        var next: [(index: Int, rest: ArraySlice<String>)] = queue.map { ($0.index, $0.sources) }
        var inFlight: [String: (index: Int, rest: ArraySlice<String>)] = [:]
        var failure: Error?
        var counter = 0
        engine.run(next: {
            if failure != nil { return .end }
            guard let (index, rest) = next.popLast(), let url = rest.first else {
                return inFlight.isEmpty ? .end : .waiting
            }
            counter += 1
            // The origin names the transfer (the same URL may be a source of two originals).
            let key = "repair:\(counter)"
            inFlight[key] = (index, rest.dropFirst())
            return .request(TransferRequest(item: FetchItem(url: url, origin: key)))
        }, completion: { transfer in
            guard let (index, rest) = inFlight.removeValue(forKey: transfer.request.item.origin) else { return }
            let record = broken[index]
            let url = transfer.request.item.url
            var reason: String
            switch transfer.body {
            case .received(let file, let sha256, let bytes, _):
                if sha256 == record.sha256, failure == nil {
                    do {
                        if let time = CaptureDate.fileTime(of: record, lastModified: transfer.lastModified) { file.setModified(time) }
                        try store.stage(file, sha256: sha256)
                        try store.syncStaged()
                        outcomes[index] = try putBack(record, source: url, store: store)
                        progress?(outcomes[index]!)
                        return
                    } catch {
                        failure = error
                        engine.cancel()
                        return
                    }
                }
                store.discard(file)
                reason = "the server sent other bytes (\(ByteSize.format(bytes)), SHA-256 \(sha256))"
            case .notModified: reason = "the server answered 304 Not Modified to a request that was not conditional"
            case .empty: reason = "the server sent an empty body"
            case .failed(let text): reason = text
            case .refused: reason = "the server sends more bytes than the original has (\(ByteSize.format(record.bytes))): other bytes"
            }
            if let status = transfer.httpStatus, !reason.contains("\(status)") { reason = "HTTP \(status): " + reason }
            attempts[index, default: []].append(RepairOutcome.Attempt(source: url, reason: reason))
            if rest.isEmpty {
                outcomes[index] = RepairOutcome(record: record, result: .notRepaired(attempts: attempts[index] ?? []))
                progress?(outcomes[index]!)
            } else {
                next.append((index, rest))
            }
        })
        if let failure { throw failure }
        if let error = engine.stopError { throw error }
    }

    /// Puts an original back from a `file://` source holding its bytes, or throws why not
    /// (`RepairSourceError` when the source is the problem).
    private func restore(_ record: OriginalRecord, fromFile source: String, store: OriginalStore) throws -> RepairOutcome {
        guard let url = URL(string: source), url.isFileURL else { throw RepairSourceError(reason: "not a file URL") }
        let path = url.path
        let input = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else { throw RepairSourceError(reason: String(cString: strerror(errno))) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw RepairSourceError(reason: "not a regular file") }
        guard Int64(info.st_size) == record.bytes else {
            throw RepairSourceError(reason: "the file changed: \(info.st_size) bytes where \(record.bytes) were recorded")
        }
        let copy: StagingCopy
        do {
            copy = try StagingCopy.copy(from: input, into: store, library: library.layout.root)
        } catch {
            switch error {
            case .source(let reason): throw RepairSourceError(reason: reason)
            case .library(let failure): throw failure
            }
        }
        guard copy.sha256 == record.sha256, copy.bytes == record.bytes else {
            store.discard(copy.file)
            throw RepairSourceError(reason: "the file changed: its SHA-256 is \(copy.sha256)")
        }
        let file = copy.file, sha256 = copy.sha256
        try store.stage(file, sha256: sha256)
        try store.syncStaged()
        return try putBack(record, source: source, store: store)
    }

    private func putBack(_ record: OriginalRecord, source: String, store: OriginalStore) throws -> RepairOutcome {
        switch try OriginalPutBack.run(store: store, sha256: record.sha256, path: record.path, time: time()) {
        case .created: return RepairOutcome(record: record, result: .repaired(source: source, aside: nil))
        case .replaced(let aside): return RepairOutcome(record: record, result: .repaired(source: source, aside: aside))
        case .alreadyPresent: return RepairOutcome(record: record, result: .alreadyIntact)
        }
    }
}

