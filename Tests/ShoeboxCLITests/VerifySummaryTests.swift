import Foundation
import ShoeboxKit
import XCTest
@testable import ShoeboxCLI

/// verify's and reindex's counts: nouns agree with their numbers, amounts in IEC units.
/// Before: "1 originals checked (0.00 GB hashed …), 1 files under originals/".
final class VerifySummaryTests: XCTestCase {
    func testOneOfEachIsSingularAndBytesAreInBinaryUnits() {
        var report = VerifyReport()
        report.originalsChecked = 1
        report.filesScanned = 1
        report.thumbnailsChecked = 1
        report.bytesHashed = 1536
        report.hashSeconds = 0.5
        report.hashThreads = 1
        report.findings = [
            VerifyProblem(kind: .missing, path: "originals/a.jpg", detail: "gone"),
            VerifyProblem(kind: .leftoverTemp, path: ".tmp/x.part", detail: "left"),
        ]
        XCTAssertEqual(VerifyCommand.summary(report),
                       "verify: 1 original checked (1.5 KiB hashed in 0.50 s, 3.0 KiB/s on 1 thread), 1 file under originals/, "
                           + "1 thumbnail: 1 problem, 1 notice")
    }

    func testManyArePluralAndLargeAmountsScale() {
        var report = VerifyReport()
        report.originalsChecked = 2
        report.filesScanned = 0
        report.thumbnailsChecked = 3
        report.bytesHashed = 3 << 30
        report.hashSeconds = 2
        report.hashThreads = 4
        XCTAssertEqual(VerifyCommand.summary(report),
                       "verify: 2 originals checked (3.0 GiB hashed in 2.00 s, 1.5 GiB/s on 4 threads), 0 files under originals/, "
                           + "3 thumbnails: 0 problems, 0 notices")
        report.quick = true
        XCTAssertTrue(VerifyCommand.summary(report).hasPrefix("verify: 2 originals checked (sizes only), "))
    }

    func testReindexCountsOfOneAreSingular() {
        var report = ReindexReport()
        report.stagedPublished = 1
        report.tempFilesRemoved = 1
        report.journaledOriginalsWithoutFile = 1
        report.sourcesDropped = 1
        report.entriesFromCatalog = 1
        report.damagedJournalLines = [3]
        let lines = ReindexCommand.lines(report, layout: LibraryLayout(root: "/lib"))
        XCTAssertTrue(lines.contains("interrupted run: 1 staged original moved into place, 1 temp file removed"), "\(lines)")
        XCTAssertTrue(lines.contains("left out: 1 journaled original whose file is not in originals/"), "\(lines)")
        XCTAssertTrue(lines.contains("sources: 0 (1 journaled source left out: its original is not in the library)"), "\(lines)")
        XCTAssertTrue(lines.contains("journal: 1 row of the replaced catalog it lacked was journaled first"), "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("journal: 1 damaged line skipped (line 3)") }, "\(lines)")
    }
}
