import Foundation
import XCTest
@testable import ShoeboxKit

/// The staging folder: files made, staged under their hash, dropped and synced; notes of
/// content staged elsewhere replaced.
final class LocalStagingAreaTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory(self).path
    }

    private func sha(_ index: Int) -> String { String(format: "%064x", index) }

    private func names(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    func testFilesAreStagedUnderTheirHashOrDroppedAndNothingElseIsLeft() throws {
        let staging = try LocalStagingArea(folder: root + "/.tmp", library: root)
        var kept: [(String, [UInt8])] = []
        for index in 0..<20 {
            let file = try staging.makeStagingFile()
            XCTAssertTrue(file.path.hasPrefix(root + "/.tmp/") && file.path.hasSuffix(".part"), file.path)
            let bytes = [UInt8](repeating: UInt8(index), count: 1000 + index)
            XCTAssertEqual(write(file.descriptor, bytes, bytes.count), bytes.count)
            if index % 3 == 0 {
                staging.discard(file)
            } else {
                try staging.stage(file, sha256: sha(index))
                kept.append((sha(index), bytes))
            }
        }
        try staging.sync()
        XCTAssertEqual(try names(root + "/.tmp"), kept.map { $0.0 + ".staged" }.sorted())
        for (hash, bytes) in kept {
            XCTAssertEqual(FileManager.default.contents(atPath: staging.stagedPath(hash)), Data(bytes))
        }
        XCTAssertEqual(try staging.pendingStaged(), kept.map(\.0).sorted())
        staging.discardStaged(sha256: kept[0].0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: staging.stagedPath(kept[0].0)))
    }

    func testAReadersAreaWithoutAFolderFailsNamingIt() throws {
        let staging = try LocalStagingArea(folder: root + "/missing", library: root, creating: false)
        XCTAssertThrowsError(try staging.makeStagingFile()) { error in
            XCTAssertTrue("\(error)".contains(root + "/missing"), "\(error)")
        }
        XCTAssertEqual(try staging.pendingStaged(), [])
    }

    func testStagingContentReplacesANoteThatItWasStagedElsewhere() throws {
        // A store that streams large bodies into uploads notes them (S3OriginalStore); the same
        // content staged here later is the one to publish.
        let staging = try LocalStagingArea(folder: root + "/.tmp", library: root)
        try staging.stageReference(sha256: sha(5), reference: "bucket/key")
        XCTAssertEqual(staging.stagedReference(sha(5)), "bucket/key")
        let file = try staging.makeStagingFile()
        try staging.stage(file, sha256: sha(5))
        try staging.sync()
        XCTAssertNil(staging.stagedReference(sha(5)))
        XCTAssertEqual(try names(root + "/.tmp"), [sha(5) + ".staged"])
    }
}
