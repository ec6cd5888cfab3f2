import Foundation
import XCTest
@testable import ShoeboxKit

/// MetadataReader is called from several threads at once by the fetch engine and by inspect.
final class MetadataConcurrencyTests: XCTestCase {
    func testConcurrentReadsGiveTheSameResultsAsSerialOnes() throws {
        let directory = try makeTemporaryDirectory(self)
        var items: [(URL, CameraTags)] = []
        for (index, ext) in ["jpg", "png", "webp", "tif", "jpg"].enumerated() {
            let url = directory.appendingPathComponent("photo\(index).\(ext)")
            try MetadataFixtures.makeImage(url, width: 30 + index, height: 20)
            items.append((url, CameraTags.cameras[index]))
        }
        try MetadataFixtures.writeTags(items)
        let paths = items.map(\.0.path)
        let serial = try paths.map { try MetadataReader.read(path: $0, includeAllTags: true) }
        XCTAssertTrue(serial.allSatisfy { $0.gps != nil || $0.make == "FUJIFILM" })

        let rounds = 100
        nonisolated(unsafe) var mismatches = 0
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<rounds {
                let index = (worker + round) % paths.count
                let metadata = try? MetadataReader.read(path: paths[index], includeAllTags: true)
                if metadata != serial[index] {
                    lock.lock()
                    mismatches += 1
                    lock.unlock()
                }
            }
        }
        XCTAssertEqual(mismatches, 0)

        var ordered: [String] = []
        MetadataBatch.read(paths + paths, includeAllTags: false, threads: 4, batchSize: 3) { ordered.append($0.path) }
        XCTAssertEqual(ordered, paths + paths, "results come back in input order")
    }
}
