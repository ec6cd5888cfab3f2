import CShim
import Foundation

/// Turns SIGINT and SIGTERM into a call on a handler, on a thread of its own
/// (not in signal context), so a command can stop cleanly and print its summary.
///
/// A C handler writes each signal's number to a pipe that the thread reads. Not
/// a Dispatch signal source: registering one needs a Dispatch thread, and when
/// the system refused threads (a tight pids limit) fetch waited for one forever
/// before it started. Without its own thread the trap leaves the signals their
/// default action: the process ends, which the library is built to survive.
/// One trap at a time: a new one takes the signals from the one before.
public final class SignalTrap {
    /// The pipe's write end stays open for the life of the process: a handler
    /// running on another thread as the trap goes could still write to it.
    private var writeEnd: Int32 = -1

    public convenience init(_ handler: @escaping @Sendable (Int32) -> Void) {
        self.init(launcher: .system, handler)
    }

    init(launcher: ThreadLauncher, _ handler: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [-1, -1]
        guard shim_signal_pipe(&ends) == 0 else { return }
        let readEnd = ends[0]
        let started = launcher.start(name: "shoebox-signals") {
            Self.deliver(from: readEnd, to: handler)
        }
        guard started else {
            ends.forEach { close($0) }
            return
        }
        writeEnd = ends[1]
        for number in [SIGINT, SIGTERM] { shim_signal_forward(number, writeEnd) }
    }

    /// Gives the signals their default action back and ends the thread.
    deinit {
        guard writeEnd >= 0 else { return }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        var stop: UInt8 = 0
        _ = write(writeEnd, &stop, 1)
    }

    /// Calls `handler` with each signal number read; returns on the 0 that `deinit` writes.
    private static func deliver(from readEnd: Int32, to handler: (Int32) -> Void) {
        var byte: UInt8 = 0
        while true {
            let count = read(readEnd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1, byte != 0 else { break }
            handler(Int32(byte))
        }
        close(readEnd)
    }
}
