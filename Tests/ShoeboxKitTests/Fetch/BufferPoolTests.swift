import XCTest
@testable import ShoeboxKit

/// The buffer pool hands out distinct, aligned buffers from a region advised for
/// huge pages, reuses given-back ones, and makes a taker wait at its limit.
final class BufferPoolTests: XCTestCase {
    func testBuffersAreAlignedDistinctWritableAndReused() throws {
        let size = 64 << 10
        let pool = try BufferPool(size: size, limit: 3)
        let buffers = (0..<3).map { _ in pool.take() }
        XCTAssertEqual(Int(bitPattern: buffers[0]) % BufferPool.hugePage, 0, "the region starts on a huge page")
        for (index, buffer) in buffers.enumerated() {
            XCTAssertEqual(Int(bitPattern: buffer) % BufferPool.alignment, 0, "buffer \(index) is block-aligned")
            buffer.initializeMemory(as: UInt8.self, repeating: UInt8(index + 1), count: size)
        }
        let starts = buffers.map { Int(bitPattern: $0) }.sorted()
        for (lower, upper) in zip(starts, starts.dropFirst()) {
            XCTAssertGreaterThanOrEqual(upper - lower, size, "buffers do not overlap")
        }
        for (index, buffer) in buffers.enumerated() {
            let bytes = UnsafeRawBufferPointer(start: buffer, count: size)
            XCTAssertTrue(bytes.allSatisfy { $0 == UInt8(index + 1) }, "buffer \(index) kept its bytes")
        }
        pool.give(buffers[1])
        XCTAssertEqual(pool.take(), buffers[1], "a given-back buffer is handed out again")
        // libdispatch traps when a semaphore is released below its start value.
        buffers.forEach(pool.give)
    }

    func testTakeWaitsUntilABufferIsGivenBack() throws {
        let pool = try BufferPool(size: 4096, limit: 1)
        let first = pool.take()
        let taken = expectation(description: "second take returns")
        let early = ManagedAtomicFlag()
        DispatchQueue.global().async {
            pool.give(pool.take())
            early.set()
            taken.fulfill()
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertFalse(early.isSet, "take returned while every buffer was out")
        pool.give(first)
        wait(for: [taken], timeout: 10)
    }

    func testARefusedReservationIsAnErrorNotACrash() {
        // 2^50 bytes: more than a process can map, whatever the limits.
        XCTAssertThrowsError(try BufferPool(size: 1 << 40, limit: 1 << 10)) { error in
            let refusal = error as? BufferPool.ReservationFailed
            XCTAssertEqual(refusal?.bytes, (1 << 50) + BufferPool.hugePage)
            XCTAssertEqual(refusal?.reason, String(cString: strerror(ENOMEM)))
        }
    }

    func testRegionIsAdvisedForHugePages() throws {
        let pool = try BufferPool(size: 512 << 10, limit: 8)
        let buffer = pool.take()
        defer { pool.give(buffer) }
        let address = UInt(bitPattern: buffer)
        let flags = try XCTUnwrap(try Self.vmFlags(containing: address), "no mapping holds the buffer")
        // "hg": the mapping carries MADV_HUGEPAGE, whether or not huge pages are free; a kernel
        // built without transparent huge pages refuses the advice (and has no such folder).
        let kernelHasThem = FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
        XCTAssertEqual(flags.contains("hg"), kernelHasThem, "VmFlags: \(flags)")
    }

    /// The VmFlags of the mapping of this process that contains `address`.
    private static func vmFlags(containing address: UInt) throws -> [String]? {
        // Read to the end: /proc files report a size of 0, which whole-file readers trust.
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, fields.first == "VmFlags:" {
                return fields.dropFirst().map(String.init)
            }
        }
        return nil
    }
}
