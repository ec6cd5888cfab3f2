import Foundation

/// Runs `body(0..<count)` on `jobs` threads, each taking the next index when free
/// (so one big file does not hold up a whole share of the work).
///
/// Plain threads, not `concurrentPerform`: the work is file I/O, and Dispatch caps its
/// width at the core count, so `verify -j 16` on a network share ran 2 at a time here.
enum ParallelLoop {
    static func run(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let next = IndexDispenser(limit: count)
        let workers = max(1, min(jobs, count))
        let done = DispatchGroup()
        for _ in 1..<workers {
            done.enter()
            let thread = Thread {
                while let index = next.take() { body(index) }
                done.leave()
            }
            thread.name = "shoebox-worker"
            thread.start()
        }
        while let index = next.take() { body(index) }  // the calling thread works too
        done.wait()
    }

    /// The number of cores to use by default.
    static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
