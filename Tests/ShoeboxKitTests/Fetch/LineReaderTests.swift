import XCTest
@testable import ShoeboxKit

/// A list line over the limit is reported and skipped without being held, so
/// a photo or a video given as the list cannot fill the memory.
final class LineReaderTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "line-reader-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func file(_ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testALongLineIsSkippedWithoutBeingHeld() throws {
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: 5 << 20)
        let path = try file(long + Array("\nhttp://a.test/ok\n".utf8) + long)
        let reader = try LineReader(path: path)
        XCTAssertEqual(try reader.nextLine(), .tooLong(start: String(repeating: "a", count: 60), bytes: 5 << 20))
        XCTAssertEqual(try reader.nextLine(), .text("http://a.test/ok"))
        XCTAssertEqual(try reader.nextLine(), .tooLong(start: String(repeating: "a", count: 60), bytes: 5 << 20),
                       "a long last line without a newline")
        XCTAssertNil(try reader.nextLine())
        XCTAssertLessThanOrEqual(reader.peakBuffered, reader.maxLineLength + 2 * LineReader.chunkSize,
                                 "a 5 MiB line was held")
    }

    func testTheLimitIsExact() throws {
        let path = try file(Array((String(repeating: "b", count: 100) + "\n" + String(repeating: "c", count: 101) + "\nd").utf8))
        let reader = try LineReader(path: path, maxLineLength: 100)
        XCTAssertEqual(try reader.nextLine(), .text(String(repeating: "b", count: 100)))
        XCTAssertEqual(try reader.nextLine(), .tooLong(start: String(repeating: "c", count: 60), bytes: 101))
        XCTAssertEqual(try reader.nextLine(), .text("d"))
        XCTAssertNil(try reader.nextLine())
    }

    func testTheListReaderReportsALongLineByFileAndLine() throws {
        let path = try file(Array("http://a.test/1\n".utf8) + [UInt8](repeating: 0xFF, count: 2 << 20)
                            + Array("\nhttp://a.test/2\n".utf8))
        let reader = URLListReader(paths: [path])
        XCTAssertEqual(try reader.next(), .url(FetchItem(url: "http://a.test/1", origin: "\(path):1")))
        guard case .invalid(let origin, _, let reason)? = try reader.next() else { return XCTFail("the long line is reported") }
        XCTAssertEqual(origin, "\(path):2")
        XCTAssertTrue(reason.contains("2097152 bytes") && reason.contains("is this a list of URLs?"), reason)
        XCTAssertEqual(try reader.next(), .url(FetchItem(url: "http://a.test/2", origin: "\(path):3")))
        XCTAssertNil(try reader.next())
    }

    func testStdinsFirstBytesComeFromOneReadWithoutWaitingForMore() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let first = Array("http://a.test/1\n".utf8)
        XCTAssertEqual(first.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }, first.count)
        let writeEnd = ends[1]
        // The producer sends more only once the first bytes were returned (or, as a safety net
        // against a reader that waits for a full sample, after 20 s): a reader that waited gets
        // its answer only after the producer's second write, and the order shows it.
        let firstBytesReturned = DispatchSemaphore(value: 0)
        let wroteMore = ManagedFlag()
        let producer = Thread {
            _ = firstBytesReturned.wait(timeout: .now() + 20)
            wroteMore.set()
            _ = "http://a.test/2\n".utf8CString.withUnsafeBytes { write(writeEnd, $0.baseAddress, 16) }
            close(writeEnd)
        }
        producer.start()
        let reader = LineReader(descriptor: ends[0], name: "-")
        XCTAssertEqual(Array(try reader.firstBytes(limit: URLListReader.binarySampleSize)), first)
        XCTAssertFalse(wroteMore.isSet, "the first URL waited for the producer's next one")
        firstBytesReturned.signal()
        XCTAssertEqual(try reader.nextLine(), .text("http://a.test/1"), "the bytes looked at are not consumed")
        XCTAssertEqual(try reader.nextLine(), .text("http://a.test/2"))
        XCTAssertNil(try reader.nextLine())
    }

    func testAPhotoOrBinaryDataGivenAsTheListIsRefusedUpFront() throws {
        let jpeg = try file([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0])
        XCTAssertThrowsError(try URLListReader.checkReadable([jpeg])) { error in
            XCTAssertEqual(error as? URLListReader.ReadError, .notText(path: jpeg, what: "a JPEG image"))
            XCTAssertTrue("\(error)".contains("give it with --url"), "\(error)")
        }
        let utf16 = try file(Array("http://a.test/1\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        XCTAssertThrowsError(try URLListReader.checkReadable([utf16])) { error in
            XCTAssertEqual(error as? URLListReader.ReadError, .notText(path: utf16, what: "binary data (or UTF-16 text)"))
        }
        // A Latin-1 comment is not UTF-8, and a stray NUL is no text either, but the list is
        // text: its lines are checked one by one.
        let strayNUL = try file(Array("http://a.test/z".utf8) + [0] + Array("\nhttp://a.test/1\n".utf8))
        XCTAssertNoThrow(try URLListReader.checkReadable([strayNUL]))
        let latin1 = try file(Array("# caf".utf8) + [0xE9] + Array("\nhttp://a.test/1\n".utf8))
        XCTAssertNoThrow(try URLListReader.checkReadable([latin1]))
        XCTAssertEqual(try URLListReader(paths: [latin1]).next(), .url(FetchItem(url: "http://a.test/1", origin: "\(latin1):2")))
    }
}

/// A flag one thread sets and another reads.
private final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
