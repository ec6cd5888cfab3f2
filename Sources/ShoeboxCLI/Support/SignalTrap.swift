import Foundation

/// Turns SIGINT and SIGTERM into a call on a handler (on a dispatch queue, not in
/// signal context), so a command can stop cleanly and print its summary.
final class SignalTrap {
    private var sources: [DispatchSourceSignal] = []

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        // No SIG_IGN first: libdispatch installs its own handler once the source is registered
        // (on its manager thread, a moment after resume), and a signal ignored meanwhile would be
        // lost; until then the default action (exit) is the right answer to an early Ctrl-C.
        for number in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
