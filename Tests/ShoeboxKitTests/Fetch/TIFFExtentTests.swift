import Foundation
import XCTest
@testable import ShoeboxKit

/// TIFF has no end marker: its structure says how long the file must be.
final class TIFFExtentTests: XCTestCase {
    /// A little-endian TIFF: 4 strips of 1,000 bytes, its IFD before or after them.
    private func tiff(ifdAtEnd: Bool, strips: Int = 4, stripSize: Int = 1000) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        let entries = 5
        let ifdSize = 2 + entries * 12 + 4
        let arrays = 8 * strips
        let ifdAt = ifdAtEnd ? 8 + strips * stripSize : 8
        let dataAt = ifdAtEnd ? 8 : 8 + ifdSize + arrays
        let offsetsAt = ifdAt + ifdSize, countsAt = offsetsAt + 4 * strips
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] { le16(tag) + le16(type) + le32(count) + le32(value) }
        var ifd = le16(entries)
        ifd += entry(256, 4, 1, 100) + entry(257, 4, 1, 40) + entry(259, 3, 1, 1)
        ifd += entry(273, 4, strips, offsetsAt) + entry(279, 4, strips, countsAt) + le32(0)
        ifd += (0..<strips).flatMap { le32(dataAt + $0 * stripSize) } + (0..<strips).flatMap { _ in le32(stripSize) }
        let pixels = [UInt8](repeating: 0x55, count: strips * stripSize)
        let header: [UInt8] = [0x49, 0x49, 42, 0] + le32(ifdAt)
        return ifdAtEnd ? header + pixels + ifd : header + ifd + pixels
    }

    /// `length`: the body's length when the file holds only its first bytes (`bytes`).
    private func judge(_ bytes: [UInt8], length: Int? = nil) throws -> TIFFExtent.Verdict {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-extent-\(UUID().uuidString).tif")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return TIFFExtent.judge(path: file.path, length: length.map(Int64.init))
    }

    /// A body that streamed on into an object store's upload leaves only its head in the file:
    /// what the head's structure places is judged against the body's length; structure past the
    /// head cannot be followed, and a head alone is never called cut for what it lacks.
    func testOnlyTheHeadOfALongerBodyIsJudgedAgainstTheBodysLength() throws {
        let first = tiff(ifdAtEnd: false)
        let head = Array(first.prefix(200))  // the IFD and its arrays, not the pixels
        XCTAssertEqual(try judge(head, length: first.count), .whole)
        XCTAssertEqual(try judge(head, length: first.count + 10), .whole)
        guard case .cut = try judge(head, length: first.count - 1) else { return XCTFail("a body shorter than its strips is cut") }
        let last = tiff(ifdAtEnd: true)
        XCTAssertEqual(try judge(Array(last.prefix(200)), length: last.count), .unknown, "the IFD lies past the head")
        guard case .cut = try judge(Array(last.prefix(200))) else { return XCTFail("the same head as a whole body is cut") }
    }

    func testAWholeTIFFIsWholeWhereverItsIFDLies() throws {
        XCTAssertEqual(try judge(tiff(ifdAtEnd: false)), .whole)
        XCTAssertEqual(try judge(tiff(ifdAtEnd: true)), .whole)
        XCTAssertEqual(try judge(tiff(ifdAtEnd: true) + [0, 0, 0]), .whole, "bytes after the structure are allowed")
    }

    func testATIFFCutAnywhereIsCut() throws {
        for ifdAtEnd in [false, true] {
            let whole = tiff(ifdAtEnd: ifdAtEnd)
            for length in [9, 60, whole.count / 2, whole.count - 1] {
                guard case .cut = try judge(Array(whole.prefix(length))) else {
                    return XCTFail("\(ifdAtEnd ? "IFD at end" : "IFD first"), cut to \(length) of \(whole.count): not called cut")
                }
            }
        }
    }

    func testHostileStructuresAreBoundedNotTrusted() throws {
        // An IFD chain that loops back to itself ends; a count past the limit is not judged.
        var looping = tiff(ifdAtEnd: false)
        let next = 8 + 2 + 5 * 12
        looping.replaceSubrange(next..<next + 4, with: [8, 0, 0, 0])
        XCTAssertEqual(try judge(looping), .whole)
        var huge = tiff(ifdAtEnd: false)
        huge.replaceSubrange(8..<10, with: [0xFF, 0xFF])
        XCTAssertEqual(try judge(huge), .unknown)
        XCTAssertEqual(try judge(Array("not a tiff at all".utf8)), .unknown)
    }

    func testManyIFDsPointingAtOneHugeArrayShareOneBudget() throws {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        // 64 IFDs in a chain, each with StripOffsets and StripByteCounts of 1,000,000 values
        // that all point at the same 4 MB of zeros: 128 million values if each were read.
        let count = 1_000_000, ifds = 64, ifdSize = 2 + 2 * 12 + 4
        let arrayAt = 8 + ifds * ifdSize
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        for index in 0..<ifds {
            let next = index + 1 < ifds ? 8 + (index + 1) * ifdSize : 0
            bytes += le16(2) + le16(273) + le16(4) + le32(count) + le32(arrayAt)
            bytes += le16(279) + le16(4) + le32(count) + le32(arrayAt) + le32(next)
        }
        bytes += [UInt8](repeating: 0, count: 4 * count)
        // Read in full, every value would be a zero-length strip inside the file: "whole".
        XCTAssertEqual(try judge(bytes), .unknown, "past the walk's budget the structure is not judged")
    }
}
