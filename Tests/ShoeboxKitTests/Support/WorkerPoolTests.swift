import Foundation
import XCTest
@testable import ShoeboxKit

/// A worker pool runs each strand's jobs in order, one at a time, strands in
/// parallel on its threads, delayed jobs once their time has come; without a
/// thread it runs them on the caller, at once.
final class WorkerPoolTests: XCTestCase {
    func testEachStrandRunsInOrderOneJobAtATimeOnThePoolsThreads() {
        let pool = WorkerPool(name: "test-pool", threads: 4)
        XCTAssertEqual(pool.threads, 4)
        let caller = pthread_self()
        let strands = (0..<6).map { _ in WorkerPool.Strand() }
        let orders = strands.map { _ in LockedBox([Int]()) }
        let running = strands.map { _ in LockedBox(0) }
        let overlapped = ManagedAtomicFlag()
        let onCaller = ManagedAtomicFlag()
        for index in 0..<300 {
            for (number, strand) in strands.enumerated() {
                pool.async(on: strand) {
                    if pthread_equal(pthread_self(), caller) != 0 { onCaller.set() }
                    if running[number].update({ $0 += 1; return $0 }) > 1 { overlapped.set() }
                    orders[number].update { $0.append(index) }
                    running[number].update { $0 -= 1 }
                }
            }
        }
        for (number, strand) in strands.enumerated() {
            let count = pool.sync(on: strand) { orders[number].current.count }
            XCTAssertEqual(count, 300, "sync runs after every job given to the strand before it")
            XCTAssertEqual(orders[number].current, Array(0..<300), "strand \(number) kept its order")
        }
        XCTAssertFalse(overlapped.isSet, "two jobs of one strand ran at once")
        XCTAssertFalse(onCaller.isSet, "jobs run on the pool's threads")
    }

    func testSyncOnAnIdleStrandRunsOnTheCallerAndHoldsTheStrand() {
        let pool = WorkerPool(name: "test-pool", threads: 2)
        let strand = WorkerPool.Strand()
        let caller = pthread_self()
        let events = LockedBox([String]())
        let onCaller = pool.sync(on: strand) {
            // A job given meanwhile waits until this one has returned.
            pool.async(on: strand) { events.update { $0.append("job") } }
            Thread.sleep(forTimeInterval: 0.1)
            events.update { $0.append("sync") }
            return pthread_equal(pthread_self(), caller) != 0
        }
        XCTAssertTrue(onCaller, "nothing queued: the caller runs the body")
        pool.sync(on: strand) {}
        XCTAssertEqual(events.current, ["sync", "job"])
    }

    func testStrandsRunInParallel() {
        let pool = WorkerPool(name: "test-pool", threads: 2)
        let first = WorkerPool.Strand(), second = WorkerPool.Strand()
        let bothRunning = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Each job waits for the other strand's: only two threads at once can pass.
        pool.async(on: first) { bothRunning.signal(); release.wait() }
        pool.async(on: second) { bothRunning.signal(); release.wait() }
        XCTAssertEqual(bothRunning.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(bothRunning.wait(timeout: .now() + 10), .success, "the second strand waited for the first")
        release.signal()
        release.signal()
        pool.sync(on: first) {}
        pool.sync(on: second) {}
    }

    func testADelayedJobWaitsItsTimeAndLetsLaterJobsPass() {
        let pool = WorkerPool(name: "test-pool", threads: 1)
        let strand = WorkerPool.Strand()
        let events = LockedBox([String]())
        let delayedRan = expectation(description: "delayed job ran")
        let start = Date()
        let waited = LockedBox<TimeInterval>(0)
        pool.async(on: strand, after: 0.2) {
            waited.update { $0 = Date().timeIntervalSince(start) }
            events.update { $0.append("delayed") }
            delayedRan.fulfill()
        }
        pool.async(on: strand) { events.update { $0.append("later") } }
        wait(for: [delayedRan], timeout: 10)
        XCTAssertEqual(events.current, ["later", "delayed"])
        XCTAssertGreaterThanOrEqual(waited.current, 0.2)
    }

    func testDelayedJobsDueTogetherRunInTheOrderOfTheirDeadlines() {
        let pool = WorkerPool(name: "test-pool", threads: 1)
        let strand = WorkerPool.Strand()
        let order = LockedBox([String]())
        // The only thread is busy until both deadlines have passed.
        pool.async(on: WorkerPool.Strand()) { Thread.sleep(forTimeInterval: 0.3) }
        // Given neither in deadline order nor in its reverse.
        for (name, delay) in [("b", 0.1), ("a", 0.05), ("c", 0.15)] {
            pool.async(on: strand, after: delay) { order.update { $0.append(name) } }
        }
        let allRan = expectation(description: "the delayed jobs ran")
        pool.async(on: strand, after: 0.2) { allRan.fulfill() }
        wait(for: [allRan], timeout: 10)
        XCTAssertEqual(order.current, ["a", "b", "c"])
    }

    func testThePoolKeepsTheThreadsItGot() {
        XCTAssertEqual(WorkerPool(name: "test-pool", threads: 4, launcher: .refusing(after: 2)).threads, 2)
    }

    func testWithoutAThreadJobsRunOnTheCallerAtOnce() {
        let pool = WorkerPool(name: "test-pool", threads: 3, launcher: .refusing(after: 0))
        XCTAssertEqual(pool.threads, 0)
        let strand = WorkerPool.Strand()
        let caller = pthread_self()
        let ran = LockedBox([String]())
        pool.async(on: strand) {
            ran.update { $0.append(pthread_equal(pthread_self(), caller) != 0 ? "async on caller" : "elsewhere") }
        }
        XCTAssertEqual(ran.current, ["async on caller"], "async returned after the job ran")
        pool.async(on: strand, after: 60) { ran.update { $0.append("delayed at once") } }
        XCTAssertEqual(pool.sync(on: strand) { 7 }, 7)
        XCTAssertEqual(ran.current, ["async on caller", "delayed at once"])
    }

    func testTheThreadsEndWithThePool() {
        let thread = LockedBox(0)
        do {
            let pool = WorkerPool(name: "test-pool", threads: 1)
            let ran = DispatchSemaphore(value: 0)
            pool.async(on: WorkerPool.Strand()) {
                // "/proc/thread-self" links to "PID/task/TID".
                let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
                thread.update { $0 = Int(link.split(separator: "/").last ?? "") ?? 0 }
                ran.signal()
            }
            XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        }
        let task = "/proc/self/task/\(thread.current)"
        XCTAssertGreaterThan(thread.current, 0)
        let pause = DispatchSemaphore(value: 0)
        for _ in 0..<200 where FileManager.default.fileExists(atPath: task) {
            _ = pause.wait(timeout: .now() + 0.05)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: task), "the pool's thread still runs after the pool is gone")
    }
}
