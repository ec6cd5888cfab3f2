import Foundation

/// Runs `body(0..<count)` on `jobs` threads, each taking the next index when free
/// (so one big file does not hold up a whole share of the work).
enum ParallelLoop {
    static func run(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let next = IndexDispenser(limit: count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { _ in
            while let index = next.take() { body(index) }
        }
    }

    /// The number of cores to use by default.
    static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
