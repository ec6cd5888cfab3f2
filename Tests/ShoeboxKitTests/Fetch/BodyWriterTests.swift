import XCTest
@testable import ShoeboxKit

/// The body writer must store exactly the bytes it was given, whatever their
/// size and however curl cut them up, and hash them; with direct I/O (whole
/// blocks) and through the page cache alike.
final class BodyWriterTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "body-writer-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testStoresAndHashesEveryBodySizeInAnyChunking() throws {
        let pool = try BufferPool(size: 64 << 10, limit: 4)
        let sizes = [0, 1, 4095, 4096, 4097, (64 << 10) - 1, 64 << 10, (64 << 10) + 1, 3 * (64 << 10) + 4096,
                     1_000_003]
        var generator = SystemRandomNumberGenerator()
        for directIO in [true, false] {
            for size in sizes {
                let body = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let chunk = [1, 977, 16 << 10, 70_000][size % 4]
                let (path, digest, directWrites) = try write(body, chunk: chunk, pool: pool, directIO: directIO)
                if directIO && size >= 3 * (64 << 10) {
                    // The folder is on a disk (ext4 here), which takes direct I/O.
                    XCTAssertGreaterThan(directWrites, 0, "size \(size): whole buffers after the first go direct")
                } else {
                    XCTAssertEqual(directWrites, 0, "size \(size), direct \(directIO)")
                }
                XCTAssertEqual([UInt8](FileManager.default.contents(atPath: path) ?? Data()), body,
                               "size \(size), direct \(directIO)")
                XCTAssertEqual(digest, try Self.sha256sum(path), "size \(size), direct \(directIO)")
            }
        }
    }

    /// A resumed body: the first part flushed with the hash left open, the rest appended
    /// from an offset that is no block boundary. The file and the hash are the whole body's,
    /// and direct I/O (which needs aligned offsets) is not tried at the unaligned ones.
    func testAFlushedBodyGoesOnFromAnUnalignedOffsetWithOneHash() throws {
        let pool = try BufferPool(size: 64 << 10, limit: 4)
        var generator = SystemRandomNumberGenerator()
        for firstPart in [1, 4097, (64 << 10) + 3, 200_001] {
            let body = (0..<600_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = folder + "/resumed-\(firstPart)"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            let writer = BodyWriter(file: StagingFile(path: path, descriptor: fd), buffers: pool)
            try body[..<firstPart].withUnsafeBytes { try writer.append($0) }
            try writer.flush()
            XCTAssertEqual(writer.length, Int64(firstPart))
            XCTAssertEqual(FileManager.default.contents(atPath: path).map([UInt8].init), Array(body[..<firstPart]),
                           "the part is on disk once flushed")
            for start in stride(from: firstPart, to: body.count, by: 30_001) {
                try body[start..<min(body.count, start + 30_001)].withUnsafeBytes { try writer.append($0) }
            }
            let digest = try writer.finish()
            XCTAssertEqual([UInt8](FileManager.default.contents(atPath: path) ?? Data()), body, "first part \(firstPart)")
            XCTAssertEqual(digest, try Self.sha256sum(path), "first part \(firstPart)")
        }
    }

    /// A body's first buffer goes through the page cache and is taken from the small pages;
    /// only the buffers after it (direct writes, pinned) come from the huge-page region.
    func testOnlyBuffersPastABodysFirstComeFromTheHugePageRegion() throws {
        for (size, rests) in [(40_000, 0...0), (64 << 10, 0...0), ((64 << 10) + 1, 1...1), (300_000, 1...4)] {
            let pool = try BufferPool(size: 64 << 10, limit: 4)
            let (path, _, _) = try write([UInt8](repeating: 9, count: size), chunk: 16 << 10, pool: pool, directIO: true)
            XCTAssertEqual(FileManager.default.contents(atPath: path)?.count, size)
            XCTAssertEqual(pool.carved(for: .start), 1, "size \(size): one first buffer")
            XCTAssertTrue(rests.contains(pool.carved(for: .rest)), "size \(size): \(pool.carved(for: .rest)) buffers past the first")
        }
    }

    func testAbandonedBodyCanBeRemovedAndItsBuffersAreReused() throws {
        let pool = try BufferPool(size: 64 << 10, limit: 2)
        for round in 0..<5 {
            let path = folder + "/abandoned-\(round)"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            let writer = BodyWriter(file: StagingFile(path: path, descriptor: fd), buffers: pool)
            let body = [UInt8](repeating: UInt8(round), count: 200_000)
            try body.withUnsafeBytes { try writer.append($0) }
            writer.abandon()
            close(fd)
            unlink(path)
        }
        // With only two buffers, a buffer kept by an abandoned body would block here.
        let (path, _, _) = try write([UInt8](repeating: 7, count: 300_000), chunk: 4096, pool: pool, directIO: true)
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data(repeating: 7, count: 300_000))
    }

    /// Writes `body` in `chunk`-byte pieces; returns the file's path, the writer's
    /// digest and how many of its writes were direct.
    private func write(_ body: [UInt8], chunk: Int, pool: BufferPool, directIO: Bool) throws -> (String, String, Int) {
        let path = folder + "/" + UUID().uuidString
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let writer = BodyWriter(file: StagingFile(path: path, descriptor: fd), buffers: pool, directIO: directIO)
        var offset = 0
        try body.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let end = min(offset + chunk, bytes.count)
                try writer.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
            }
        }
        let digest = try writer.finish()
        return (path, digest, writer.directWrites)
    }

    /// coreutils' sha256sum of a file: an oracle independent of our hasher.
    private static func sha256sum(_ path: String) throws -> String {
        String(try ToolProcess.run("sha256sum", [path]).prefix(64))
    }
}
