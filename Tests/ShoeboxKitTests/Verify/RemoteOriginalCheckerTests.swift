import Foundation
import ShoeboxTestSupport
import XCTest
@testable import ShoeboxKit

/// verify's check of an original in a remote store (here the in-memory one): the EXIF of a
/// small original is read from the bytes streamed for its hash, a large one's by range; either
/// way a changed EXIF summary is a metadata mismatch and the recorded one passes.
final class RemoteOriginalCheckerTests: XCTestCase {
    func testTheEXIFOfSmallAndLargeRemoteOriginalsIsCompared() throws {
        let folder = try makeTemporaryDirectory(self)
        let (small, metadata) = try MetadataFixtures.cameraJPEG(in: folder)
        XCTAssertEqual(metadata.make, "Canon")
        // The same image with bytes after its end: the same EXIF, too large to be kept in memory.
        let large = small + Data(count: Int(OriginalChecker.metadataFromBodyLimit))
        XCTAssertLessThan(Int64(small.count), OriginalChecker.metadataFromBodyLimit)

        // The records as fetch makes them (a local library's), checked against the remote copies.
        let library = try VerifyTestLibrary(root: folder.appendingPathComponent("library").path)
        let store = try InMemoryOriginalStore()
        var listed: [String: Int64] = [:]
        var records: [(OriginalRecord, expected: [VerifyProblem.Kind])] = []
        for (name, data) in [("small", small), ("large", large)] {
            for recordedMake in ["Canon", "Nikon"] {
                let data = recordedMake == "Canon" ? data : data + Data([0])  // other bytes, the same EXIF
                let path = "originals/2024/05/01/\(name)-\(recordedMake).jpg"
                let record = try library.store(data, path: path, metadata: metadata, recordedMake: recordedMake)
                store.put(data, at: path)
                listed[path] = Int64(data.count)
                records.append((record, recordedMake == "Canon" ? [] : [.metadataMismatch]))
            }
        }
        var checker = OriginalChecker(layout: library.layout, quick: false, readMetadata: LibraryVerifier.defaultMetadataReader, staged: [])
        checker.remote = (store, listed)
        for (record, expected) in records {
            let outcome = checker.check(record)
            XCTAssertEqual(outcome.findings.map(\.kind), expected, "\(record.path): \(outcome.findings)")
            XCTAssertEqual(outcome.bytesHashed, record.bytes, record.path)
            if let finding = outcome.findings.first {
                XCTAssertTrue(finding.detail.contains("make 'Canon' but recorded 'Nikon'"), finding.detail)
            }
        }
    }
}
