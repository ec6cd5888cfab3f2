import Foundation

/// Puts fetch's lists into the shared work queue, once for all the workers that start with
/// them: each list is known by the SHA-256 of its bytes (`ListIdentity`), so the same file on
/// ten machines is one list; the first worker loads it (resumably), the others find it loaded
/// or wait for the loader. Lines that are no URL are reported by the worker that loads them.
///
/// A URL with a password is refused here: the queue is in the catalog's database, and
/// credentials never go into the catalog (give them with --header or a .netrc file instead).
enum QueueLoader {
    /// Loads every list; returns their identities, in order. `report` gets the lines this
    /// worker found invalid while loading.
    static func load(
        lists: [String], shownNames: [String: String], queue: WorkQueue, retry: ConnectionRetry,
        report: @escaping (FetchResult) -> Void
    ) throws -> [ListIdentity] {
        var identities: [ListIdentity] = []
        for list in lists {
            let shown = shownNames[list] ?? list
            let identity = try ListIdentity.ofFile(atPath: list, name: (shown as NSString).lastPathComponent)
            var readError: Error?
            // A load retried after a lost connection reads the list again from its start: each
            // refused line is reported once.
            var reported = Set<String>()
            func refuse(_ result: FetchResult) {
                if reported.insert(result.origin).inserted { report(result) }
            }
            try retry.run {
                readError = nil
                let reader = URLListReader(paths: [list], shownNames: shownNames.mapValues(URLListReader.shownName))
                let entries = sequence(state: reader) { reader -> (line: Int, url: String)? in
                    while readError == nil {
                        let entry: URLListReader.Entry?
                        do {
                            entry = try reader.next()
                        } catch {
                            readError = error
                            return nil
                        }
                        switch entry {
                        case nil:
                            return nil
                        case .invalid(let origin, let line, let reason)?:
                            refuse(FetchResult(url: URLValidator.withoutPassword(line), origin: origin, outcome: .failed, reason: reason))
                        case .url(let item)?:
                            guard item.url == item.recordedURL else {
                                refuse(FetchResult(
                                    url: item.recordedURL, origin: item.origin, outcome: .failed,
                                    reason: "a URL with a password cannot go into a shared queue (credentials never go into the catalog): "
                                        + "give them with --header or a .netrc file"))
                                continue
                            }
                            return (line(of: item.origin), item.url)
                        }
                    }
                    return nil
                }
                try queue.load(list: identity, entries: entries, batchSize: 5_000, wait: true)
            }
            if let readError { throw readError }
            identities.append(identity)
        }
        return identities
    }

    /// The line number at the end of an origin ("urls.txt:12").
    static func line(of origin: String) -> Int {
        origin.split(separator: ":").last.flatMap { Int($0) } ?? 0
    }
}
