import Foundation
import XCTest
@testable import ShoeboxKit

final class HeadByteSourceTests: XCTestCase {
    /// A camera JPEG (EXIF, GPS) in a fresh folder: its path and bytes.
    private func cameraJPEG() throws -> (path: String, bytes: [UInt8]) {
        let folder = try makeTemporaryDirectory(self)
        let (data, _) = try MetadataFixtures.cameraJPEG(in: folder)
        return (folder.appendingPathComponent("camera.jpg").path, [UInt8](data))
    }

    func testEveryRangeReadsTheFilesBytesWhereverTheHeadEnds() throws {
        let (path, bytes) = try cameraJPEG()
        let whole = MemoryByteSource(data: bytes)
        var random = SystemRandomNumberGenerator()
        for headLength in [0, 1, 63, 64, 1000, bytes.count - 1, bytes.count, bytes.count + 10] {
            let source = HeadByteSource(head: Array(bytes.prefix(headLength)), size: bytes.count, path: path)
            XCTAssertEqual(source.size, bytes.count)
            var ranges = [(0, 1), (0, bytes.count), (0, bytes.count + 5), (bytes.count - 1, 1), (bytes.count, 4), (-1, 4), (3, 0)]
            ranges += [(max(0, headLength - 2), 4), (headLength, 1), (max(0, headLength - 1), 1)]
            for _ in 0..<200 { ranges.append((Int.random(in: 0...bytes.count, using: &random), Int.random(in: 0...3000, using: &random))) }
            for (offset, count) in ranges {
                XCTAssertEqual(try source.bytes(at: offset, count: count), whole.bytes(at: offset, count: count),
                               "head \(headLength), \(count) bytes at \(offset)")
            }
        }
    }

    func testAFileWhollyInTheHeadIsNeverOpened() throws {
        let (path, bytes) = try cameraJPEG()
        let expected = try MetadataReader.read(path: path)
        try FileManager.default.removeItem(atPath: path)
        let fromHead = try MetadataReader.read(head: bytes, size: bytes.count, path: path)
        XCTAssertEqual(fromHead, expected)
        XCTAssertEqual(fromHead.make, "Canon")
        XCTAssertNotNil(fromHead.gps)
    }

    func testMetadataPastTheHeadIsReadFromTheFile() throws {
        let (path, bytes) = try cameraJPEG()
        let expected = try MetadataReader.read(path: path)
        // The first 64 bytes only: the EXIF block runs past them.
        XCTAssertEqual(try MetadataReader.read(head: Array(bytes.prefix(64)), size: bytes.count, path: path), expected)
        // And with the file gone, the read past the head fails instead of making something up.
        try FileManager.default.removeItem(atPath: path)
        XCTAssertThrowsError(try MetadataReader.read(head: Array(bytes.prefix(64)), size: bytes.count, path: path)) { error in
            XCTAssertTrue("\(error)".contains(path), "\(error)")
        }
    }
}
