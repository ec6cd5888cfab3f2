import XCTest
@testable import ShoeboxKit

/// The buffer pool hands out distinct, aligned buffers (a body's start on small pages,
/// its rest on pages advised for huge pages), reuses given-back ones in their own
/// region, and makes a taker wait at its limit, whichever part it asks for.
final class BufferPoolTests: XCTestCase {
    func testBuffersAreAlignedDistinctWritableAndReused() throws {
        let size = 64 << 10
        let pool = try BufferPool(size: size, limit: 4)
        let buffers = [pool.take(for: .start), pool.take(for: .rest), pool.take(for: .start), pool.take(for: .rest)]
        XCTAssertEqual(Int(bitPattern: buffers[0]) % BufferPool.hugePage, 0, "the starts' region starts on a huge page")
        XCTAssertEqual(Int(bitPattern: buffers[1]) % BufferPool.hugePage, 0, "the rests' region starts on a huge page")
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
        pool.give(buffers[2])
        XCTAssertEqual(pool.take(for: .rest), buffers[1], "a given-back buffer is handed out again, for its part")
        XCTAssertEqual(pool.take(for: .start), buffers[2], "a given-back buffer is handed out again, for its part")
        // libdispatch traps when a semaphore is released below its start value.
        buffers.forEach(pool.give)
    }

    func testTakeWaitsUntilABufferIsGivenBack() throws {
        let pool = try BufferPool(size: 4096, limit: 1)
        let first = pool.take(for: .start)
        let taken = expectation(description: "second take returns")
        let early = ManagedAtomicFlag()
        DispatchQueue.global().async {
            // The other region has room, but the limit counts both.
            pool.give(pool.take(for: .rest))
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
            XCTAssertEqual(refusal?.bytes, 2 * (1 << 50) + BufferPool.hugePage)
            XCTAssertEqual(refusal?.reason, String(cString: strerror(ENOMEM)))
        }
    }

    func testOnlyTheRestOfABodyIsAdvisedForHugePages() throws {
        let pool = try BufferPool(size: 512 << 10, limit: 8)
        let start = pool.take(for: .start), rest = pool.take(for: .rest)
        defer { [start, rest].forEach(pool.give) }
        let startFlags = try XCTUnwrap(try Self.vmFlags(containing: UInt(bitPattern: start)), "no mapping holds the start")
        let restFlags = try XCTUnwrap(try Self.vmFlags(containing: UInt(bitPattern: rest)), "no mapping holds the rest")
        // "hg": the mapping carries MADV_HUGEPAGE, "nh" MADV_NOHUGEPAGE, whether or not huge pages
        // are free; a kernel built without transparent huge pages refuses both (and has no such folder).
        let kernelHasThem = FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
        XCTAssertEqual(restFlags.contains("hg"), kernelHasThem, "VmFlags of the rest: \(restFlags)")
        XCTAssertFalse(restFlags.contains("nh"), "VmFlags of the rest: \(restFlags)")
        XCTAssertEqual(startFlags.contains("nh"), kernelHasThem, "VmFlags of the start: \(startFlags)")
        XCTAssertFalse(startFlags.contains("hg"), "VmFlags of the start: \(startFlags)")
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
