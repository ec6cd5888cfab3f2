import Foundation

/// Reads the URL lists on a thread of its own, a bounded number of entries ahead, so
/// the network thread never blocks on its input: `producer | shoebox fetch -` keeps
/// its transfers moving (and Ctrl-C works) while the producer has nothing to say.
final class ListPrefetcher: @unchecked Sendable {
    enum Poll {
        case entry(URLListReader.Entry)
        /// Nothing read yet; `onAvailable` is called when there is.
        case waiting
        case end
        case failed(Error)
    }

    private let reader: URLListReader
    private let capacity: Int
    private let onAvailable: @Sendable () -> Void
    private let condition = NSCondition()
    private var shared: [URLListReader.Entry] = []
    private var finished = false
    private var failure: Error?
    private var consumerWaits = false
    private var stopped = false
    private var started = false
    /// Set when the system refused the reading thread: `poll` then reads the lists itself.
    private var readsInline = false
    private let launcher: ThreadLauncher
    /// The consumer's batch, taken from `shared` in one swap (only the consumer touches it).
    private var batch: [URLListReader.Entry] = []
    private var batchIndex = 0

    /// `capacity`: entries read ahead at most, so memory does not grow with the list.
    init(reader: URLListReader, capacity: Int = 4096, launcher: ThreadLauncher = .system,
         onAvailable: @escaping @Sendable () -> Void) {
        self.reader = reader
        self.capacity = capacity
        self.launcher = launcher
        self.onAvailable = onAvailable
    }

    /// The next entry, or `.waiting` when the reader has not got that far yet.
    func poll() -> Poll {
        if batchIndex < batch.count {
            defer { batchIndex += 1 }
            return .entry(batch[batchIndex])
        }
        condition.lock()
        if !started {
            started = true
            readsInline = !launcher.start(name: "shoebox-list") { [self] in readAll() }
        }
        if readsInline {
            condition.unlock()
            return readInline()
        }
        batch.removeAll(keepingCapacity: true)
        batchIndex = 0
        swap(&batch, &shared)
        let wasFull = batch.count >= capacity
        let outcome: Poll?
        if !batch.isEmpty {
            outcome = nil
        } else if let failure {
            outcome = .failed(failure)
        } else if finished {
            outcome = .end
        } else {
            consumerWaits = true
            outcome = .waiting
        }
        if wasFull { condition.signal() }
        condition.unlock()
        return outcome ?? poll()
    }

    /// Lets the reading thread end; one blocked in `read` ends when its input moves or closes.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// The next entry read on the calling thread (as before there was a reading thread).
    private func readInline() -> Poll {
        do {
            return try reader.next().map(Poll.entry) ?? .end
        } catch {
            return .failed(error)
        }
    }

    private func readAll() {
        while true {
            let entry: URLListReader.Entry?
            var error: Error?
            do {
                entry = try reader.next()
            } catch let readError {
                entry = nil
                error = readError
            }
            condition.lock()
            while shared.count >= capacity && !stopped { condition.wait() }
            if let entry, !stopped {
                shared.append(entry)
            } else {
                finished = true
                failure = error
            }
            let wake = consumerWaits
            consumerWaits = false
            let done = finished || stopped
            condition.unlock()
            if wake { onAvailable() }
            if done { return }
        }
    }
}
