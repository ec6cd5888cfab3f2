import Foundation
import ShoeboxKit

/// SIGINT and SIGTERM for a command with nothing to finish or undo when stopped (verify and
/// inspect only read; gallery replaces its page atomically): a message and exit status 130 at
/// once, as the manual's EXIT STATUS says, instead of the signal's default death. Keep the
/// returned trap alive for the command's run.
enum InterruptExit {
    static func trap(_ command: String, console: Console) -> SignalTrap {
        SignalTrap { _ in
            console.clearProgress()
            console.error("\(command): interrupted")
            _exit(ExitStatus.interrupted)
        }
    }
}
