/// Feeds the transfer engine: command-line URLs, then the lists, line by line.
/// Invalid lines are reported as failed, repeated URLs are dropped, and URLs the
/// library already has are reported as skipped (or revalidated with --refresh).
struct RequestSource {
    private let configuration: FetchRun.Configuration
    private let catalog: Catalog
    /// How lookups in a shared catalog ride out a lost connection.
    private let retry: ConnectionRetry
    private let store: OriginalStore
    /// False for a library with no source yet (a first run): then no URL needs a lookup.
    /// Only this run writes meanwhile (it holds the writer lock), and it never sees a URL twice.
    /// Always true for a shared catalog, which other writers fill meanwhile.
    private let catalogHasSources: Bool
    private let report: (FetchResult) -> Void
    private let countRepeat: () -> Void
    private let lists: ListEntries
    private var commandLineURLs: [String]
    private var seen = URLDeduplicator()
    /// Entries from a shared work queue, whose items are distinct URLs already: one it hands
    /// out again is a retry (or another worker's abandoned claim), not a repeat.
    private let fromQueue: Bool
    private(set) var readError: Error?

    init(
        configuration: FetchRun.Configuration, lists: [String], entries: ListEntries? = nil, catalog: Catalog, store: OriginalStore,
        catalogIsShared: Bool = false, retry: ConnectionRetry = ConnectionRetry(),
        report: @escaping (FetchResult) -> Void, countRepeat: @escaping () -> Void,
        onInput: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
        self.retry = retry
        self.catalog = catalog
        self.store = store
        catalogHasSources = catalogIsShared || ((try? catalog.hasSources()) ?? true)
        self.report = report
        self.countRepeat = countRepeat
        fromQueue = entries != nil
        self.lists = entries ?? ListPrefetcher(reader: configuration.listReader(lists), onAvailable: onInput)
        commandLineURLs = configuration.urls.reversed()
    }

    /// The next transfer to run; `.waiting` while the lists have nothing more read yet.
    mutating func next() -> TransferEngine.Next {
        while true {
            switch nextEntry() {
            case .entry(.invalid(let origin, let line, let reason)):
                report(FetchResult(url: URLValidator.withoutPassword(line), origin: origin, outcome: .failed, reason: reason))
            case .entry(.url(let item)):
                guard fromQueue || seen.insert(item.identity) else {
                    countRepeat()
                    continue
                }
                do {
                    if let request = try retry.run({ try request(for: item) }) { return .request(request) }
                } catch {
                    // A catalog that cannot answer must stop the run, not make it fetch everything again.
                    readError = error
                    return .end
                }
            case .waiting:
                return .waiting
            case .end:
                return .end
            case .failed(let error):
                readError = error
                return .end
            }
        }
    }

    /// Lets the list-reading thread end (the run stops early).
    func stop() {
        lists.stop()
    }

    private mutating func nextEntry() -> ListPrefetcher.Poll {
        if let url = commandLineURLs.popLast() {
            return .entry(URLListReader.parse(url, origin: "--url") ?? .invalid(origin: "--url", line: url, reason: "empty URL"))
        }
        return lists.poll()
    }

    /// The transfer to run for an item, or nil when the library already has it (reported as skipped).
    private func request(for item: FetchItem) throws -> TransferRequest? {
        // A shared queue's claim looked its batch up at once (one round trip, not one per URL).
        let prefetched = lists.knownSource(of: item)
        guard catalogHasSources, let known = try prefetched ?? catalog.source(of: item), let sha256 = known.sha256 else {
            return TransferRequest(item: item)
        }
        if configuration.options.refresh {
            // An original whose file is gone or holds other bytes is asked for whole: a 304
            // would leave it so. (A local file is hashed; an object is judged by its size and
            // the hash it carries.)
            if let original = try catalog.original(sha256: sha256), try !store.holdsIntact(original) {
                return TransferRequest(item: item)
            }
            return TransferRequest(item: item, etag: known.etag, lastModified: known.lastModified)
        }
        var result = FetchResult(url: item.recordedURL, origin: item.origin, outcome: .skipped, reason: "already in the library")
        result.finalURL = known.finalURL.map { URLValidator.withoutPassword($0) }
        result.httpStatus = known.httpStatus
        result.sha256 = sha256
        if let original = try catalog.original(sha256: sha256) {
            result.path = original.path
            result.bytes = original.bytes
            result.original = original
            result.contentType = original.contentType
            result.fileExtension = ImageFormat.allCases.first { $0.mimeType == original.contentType }?.fileExtension
        }
        report(result)
        return nil
    }
}
