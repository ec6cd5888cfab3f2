import Foundation
import XCTest
@testable import ShoeboxKit

/// The streaming decoder decodes every gzip member and knows where a stream ends,
/// wherever the network's reads happen to cut the bytes.
final class ContentDecoderTests: XCTestCase {
    /// `gzip` of `data` through the gzip command (Foundation has no gzip writer).
    private func gzip(_ data: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-c", "-n"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: data)
        try input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return result
    }

    private func decode(_ body: Data, cuts: [Int]) throws -> (Data, ContentDecoder.Progress, Bool) {
        let decoder = try XCTUnwrap(try ContentDecoder(contentEncoding: "gzip"))
        var decoded = Data()
        var last = ContentDecoder.Progress.more
        var start = 0
        for end in cuts + [body.count] where end >= start {
            let piece = body[start..<end]
            start = end
            last = try piece.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { decoded.append(contentsOf: $0); return true }
            }
            if last != .more { break }
        }
        return (decoded, last, decoder.isComplete)
    }

    func testTwoMembersAreDecodedWhateverTheReadBoundaries() throws {
        let first = Data((0..<3000).map { UInt8($0 % 251) }), second = Data((0..<5000).map { UInt8($0 % 13) })
        let one = try gzip(first), two = try gzip(second)
        let body = one + two
        // Every cut around the members' boundary, including the one between 0x1f and 0x8b.
        for cut in (one.count - 3)...(one.count + 3) {
            let (decoded, progress, complete) = try decode(body, cuts: [cut])
            XCTAssertEqual(decoded, first + second, "cut at \(cut) of \(body.count)")
            XCTAssertEqual(progress, .more)
            XCTAssertTrue(complete, "cut at \(cut)")
        }
    }

    func testAStreamCutBetweenMembersIsCompleteButCutInsideOneIsNot() throws {
        let one = try gzip(Data(repeating: 7, count: 2000)), two = try gzip(Data(repeating: 9, count: 2000))
        XCTAssertTrue(try decode(one, cuts: []).2)
        XCTAssertFalse(try decode(one + two.prefix(two.count / 2), cuts: [one.count]).2, "second member cut short")
    }

    func testBytesAfterTheEndThatAreNoMemberStopDecoding() throws {
        let photo = Data(repeating: 1, count: 1000)
        let body = try gzip(photo) + Data("trailing garbage".utf8)
        let (decoded, progress, complete) = try decode(body, cuts: [])
        XCTAssertEqual(decoded, photo)
        XCTAssertEqual(progress, .dataAfterEnd)
        XCTAssertTrue(complete)
        // A lone 0x1f after the end, then something else: garbage too, found on the next read.
        let held = try gzip(photo) + Data([0x1f])
        let (_, heldProgress, _) = try decode(held + Data([0x00, 0x01]), cuts: [held.count])
        XCTAssertEqual(heldProgress, .dataAfterEnd)
        // A body that ends on that lone 0x1f may have been cut inside the next member: not complete.
        XCTAssertFalse(try decode(held, cuts: []).2)
    }
}
