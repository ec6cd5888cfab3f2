import Foundation

/// Page-aligned buffers of one size, reused from transfer to transfer.
/// Buffers are carved on first use from two reserved regions, up to `limit` in
/// all; `take` waits while all are out. Every running transfer holds at most one
/// buffer while it fills it, so a limit above the number of transfers at once
/// leaves room for the ones being written and cannot deadlock.
///
/// A body's first buffer goes through the page cache (`BodyWriter`) and comes from
/// a region of small pages: a 173 KB photo touches 43 of them. The buffers after it
/// are written with direct I/O, which pins their pages, and come from a region
/// advised for transparent huge pages: a 2 MiB page is pinned (and mapped) in one
/// step where small pages take 512 (on the 12 MP bench set that cut fetch's wall
/// time by 8%). With first buffers on huge pages too, a run of small photos faulted
/// in four 2 MiB pages for buffers two-thirds unused: 5 MB more peak RSS (46.6
/// against 41.7 MB on the bench's small set), at no measurable gain in time.
final class BufferPool: @unchecked Sendable {
    static let alignment = 4096
    static let hugePage = 2 << 20

    /// Where in a body a buffer goes: its start (small pages) or the rest (huge pages).
    enum Part: Int {
        case start = 0
        case rest = 1
    }

    let size: Int
    let limit: Int
    private let available: DispatchSemaphore
    private let lock = NSLock()
    private var free: [[UnsafeMutableRawPointer]] = [[], []]
    private var carved = [0, 0]
    private let mapping: UnsafeMutableRawPointer
    private let mappingLength: Int
    /// The regions of `Part.start` and `Part.rest`, each room for `limit` buffers.
    private let regions: [UnsafeMutableRawPointer]

    /// The address space for the buffers was refused (a memory limit such as `ulimit -v`).
    struct ReservationFailed: Error {
        let bytes: Int
        let reason: String
    }

    init(size: Int, limit: Int) throws {
        precondition(size % Self.alignment == 0 && limit > 0)
        self.size = size
        self.limit = limit
        available = DispatchSemaphore(value: limit)
        // Each region whole huge pages, and one huge page more so they can start on a boundary.
        let region = (limit * size + Self.hugePage - 1) / Self.hugePage * Self.hugePage
        let length = 2 * region + Self.hugePage
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw ReservationFailed(bytes: length, reason: String(cString: strerror(errno)))
        }
        mapping = mapped
        mappingLength = length
        let start = (Int(bitPattern: mapped) + Self.hugePage - 1) / Self.hugePage * Self.hugePage
        regions = [UnsafeMutableRawPointer(bitPattern: start)!, UnsafeMutableRawPointer(bitPattern: start + region)!]
        // Advice only: without huge pages (disabled, or none free) the rest keeps small pages;
        // with them on for every mapping ("always"), the starts are kept on small pages.
        madvise(regions[Part.start.rawValue], region, MADV_NOHUGEPAGE)
        madvise(regions[Part.rest.rawValue], region, MADV_HUGEPAGE)
    }

    deinit {
        munmap(mapping, mappingLength)
    }

    func take(for part: Part) -> UnsafeMutableRawPointer {
        available.wait()
        return lock.withLock {
            let index = part.rawValue
            if let buffer = free[index].popLast() { return buffer }
            carved[index] += 1
            return regions[index] + (carved[index] - 1) * size
        }
    }

    /// How many buffers of `part`'s region have been handed out at least once (for tests).
    func carved(for part: Part) -> Int {
        lock.withLock { carved[part.rawValue] }
    }

    func give(_ buffer: UnsafeMutableRawPointer) {
        let index = buffer >= regions[Part.rest.rawValue] ? Part.rest.rawValue : Part.start.rawValue
        lock.withLock { free[index].append(buffer) }
        available.signal()
    }
}
