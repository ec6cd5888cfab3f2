import Foundation
import XCTest
@testable import ShoeboxKit

final class ParallelLoopTests: XCTestCase {
    func testEveryIndexRunsOnceOnAsManyThreadsAsAskedEvenBeyondTheCores() {
        let jobs = ProcessInfo.processInfo.activeProcessorCount * 4
        let state = LockedBox((seen: [Int](), running: 0, most: 0))
        ParallelLoop.run(count: jobs * 2, jobs: jobs) { index in
            state.update { $0.running += 1; $0.most = max($0.most, $0.running); $0.seen.append(index) }
            Thread.sleep(forTimeInterval: 0.05)  // waiting on I/O, as verify's hashing does on a slow disk
            state.update { $0.running -= 1 }
        }
        XCTAssertEqual(state.current.seen.sorted(), Array(0..<(jobs * 2)))
        XCTAssertEqual(state.current.most, jobs, "-j beyond the core count runs that many at once")
    }
}
