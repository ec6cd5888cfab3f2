import Foundation

/// Page-aligned buffers of one size, reused from transfer to transfer.
/// Buffers are allocated on first use, up to `limit`; `take` waits while all
/// are out. Every running transfer holds at most one buffer while it fills it,
/// so a limit above the number of transfers at once leaves room for the ones
/// being written and cannot deadlock.
final class BufferPool: @unchecked Sendable {
    static let alignment = 4096
    let size: Int
    private let available: DispatchSemaphore
    private let lock = NSLock()
    private var free: [UnsafeMutableRawPointer] = []
    private var allocated: [UnsafeMutableRawPointer] = []

    init(size: Int, limit: Int) {
        precondition(size % Self.alignment == 0 && limit > 0)
        self.size = size
        available = DispatchSemaphore(value: limit)
    }

    deinit {
        for buffer in allocated { buffer.deallocate() }
    }

    func take() -> UnsafeMutableRawPointer {
        available.wait()
        return lock.withLock {
            if let buffer = free.popLast() { return buffer }
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: Self.alignment)
            allocated.append(buffer)
            return buffer
        }
    }

    func give(_ buffer: UnsafeMutableRawPointer) {
        lock.withLock { free.append(buffer) }
        available.signal()
    }
}
