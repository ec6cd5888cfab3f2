import XCTest
@testable import ShoeboxKit

/// Canon CRW (CIFF heaps): make, model, capture time, pixel size and exposure from the heaps,
/// agreeing with `exiftool -json -n`; damaged heaps warn; fetch names the type .crw.
final class CRWContainerTests: XCTestCase {
    private static func le16s(_ values: [Int]) -> [UInt8] { values.flatMap { EXIFBytes.le16($0 & 0xFFFF) } }

    /// A heap: the values, then the directory (count, 10-byte entries), then the directory's offset.
    static func heap(_ entries: [(tag: Int, data: [UInt8])]) -> [UInt8] {
        var values: [UInt8] = [], table = EXIFBytes.le16(entries.count)
        for entry in entries {
            table += EXIFBytes.le16(entry.tag) + EXIFBytes.le32(entry.data.count) + EXIFBytes.le32(values.count)
            values += entry.data
        }
        return values + table + EXIFBytes.le32(values.count)
    }

    static func crw(directoryOffset: Int? = nil) -> [UInt8] {
        var settings = [Int](repeating: 0, count: 46)
        settings[0] = 92
        settings[16] = 0x4000 | 200
        settings[25] = 1          // FocalUnits
        var shot = [Int](repeating: 0, count: 27)
        shot[0] = 54
        shot[21] = 0x74          // f/2^(3.625/2)
        shot[22] = 0xC0          // 2^-6 = 1/64 s
        let properties = heap([
            (0x180E, EXIFBytes.le32(1_068_485_966) + EXIFBytes.le32(0) + EXIFBytes.le32(0)),   // 2003:11:10 17:39:26
            (0x1810, EXIFBytes.le32(3072) + EXIFBytes.le32(2048) + EXIFBytes.le32(0x3F80_0000) + EXIFBytes.le32(0)),
            (0x102D, le16s(settings)), (0x102A, le16s(shot)), (0x1029, le16s([1, 24, 0, 0])),
        ])
        var root = heap([(0x080A, Array("Canon\0Canon EOS DIGITAL REBEL\0".utf8)), (0x300A, properties)])
        if let directoryOffset { root.replaceSubrange(root.count - 4..<root.count, with: EXIFBytes.le32(directoryOffset)) }
        return [0x49, 0x49] + EXIFBytes.le32(26) + Array("HEAPCCDR".utf8) + [1, 0, 2, 0] + [UInt8](repeating: 0, count: 8) + root
    }

    func testHeapsAgreeWithExiftool() throws {
        let url = try makeTemporaryDirectory(self).appendingPathComponent("CRW_0001.CRW")
        try Data(Self.crw()).write(to: url)
        XCTAssertEqual(FormatSniffer.sniff(fileAt: url.path), .crw)
        let metadata = try MetadataReader.read(path: url.path)
        XCTAssertEqual(metadata.warnings, [])
        XCTAssertEqual(metadata.model, "Canon EOS DIGITAL REBEL")
        XCTAssertEqual(metadata.dateTimeOriginal, "2003:11:10 17:39:26")
        XCTAssertEqual(metadata.iso, 200)
        XCTAssertEqual(try XCTUnwrap(metadata.exposureTime), 0.015625, accuracy: 1e-15)
        XCTAssertEqual(metadata.width, 3072)
        assertMatchesExiftool(metadata, try XCTUnwrap(try MetadataFixtures.exiftool([url])[url.path]))
        XCTAssertEqual(CaptureDate.forFile(metadata: metadata, modified: 0).source, .rawHeader)
    }

    func testDamagedHeapsAndFetchNaming() throws {
        // The root directory's offset points past its heap: a damaged file, the reason named.
        XCTAssertThrowsError(try MetadataReader.read(bytes: Self.crw(directoryOffset: 1 << 30), name: "bad.crw")) { error in
            XCTAssertTrue("\(error)".contains("CRW directory offset"), "\(error)")
        }
        // A heap listing itself: the loop is noticed and the walk stops.
        var looped = Self.crw()
        let rootDirectory = looped.count - 4 - (2 + 2 * 10)
        let subheapEntry = rootDirectory + 2 + 10
        XCTAssertEqual(Array(looped[subheapEntry..<subheapEntry + 2]), [0x0A, 0x30])
        // Make the subheap entry cover the whole root heap (offset 0, its full size).
        let rootSize = looped.count - 26
        looped.replaceSubrange(subheapEntry + 2..<subheapEntry + 10, with: EXIFBytes.le32(rootSize) + EXIFBytes.le32(0))
        let metadata = try MetadataReader.read(bytes: looped, name: "loop.crw")
        XCTAssertTrue(metadata.warnings.contains { $0.contains("referenced twice") }, "\(metadata.warnings)")
        XCTAssertEqual(metadata.make, "Canon")
        let bytes = Self.crw()
        guard case .accept(let format, _) = ContentTypeRules.decide(contentType: "image/x-canon-crw", prefix: Array(bytes.prefix(64)),
                                                                     bodyBytes: Int64(bytes.count)) else { return XCTFail("rejected") }
        XCTAssertEqual(format.fileExtension, "crw")
    }
}
