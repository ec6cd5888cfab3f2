import Foundation

/// Runs `body(0..<count)` on `jobs` threads, each taking the next index when free
/// (so one big file does not hold up a whole share of the work).
///
/// Plain threads, not `concurrentPerform`: the work is file I/O, and Dispatch caps its
/// width at the core count, so `verify -j 16` on a network share ran 2 at a time here.
enum ParallelLoop {
    /// Returns how many threads did the work: fewer than `jobs` when the system
    /// refused some (the calling thread always works, so the loop always ends).
    @discardableResult
    static func run(count: Int, jobs: Int, launcher: ThreadLauncher = .system, _ body: @escaping @Sendable (Int) -> Void) -> Int {
        guard count > 0 else { return 0 }
        let next = IndexDispenser(limit: count)
        let done = DispatchGroup()
        var threads = 1
        for _ in 1..<max(1, min(jobs, count)) {
            done.enter()
            let started = launcher.start(name: "shoebox-worker") {
                while let index = next.take() { body(index) }
                done.leave()
            }
            guard started else {
                done.leave()
                break
            }
            threads += 1
        }
        while let index = next.take() { body(index) }  // the calling thread works too
        done.wait()
        return threads
    }

    /// The number of cores to use by default.
    static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
