import Foundation

/// Turns SIGINT and SIGTERM into a call on a handler (on a dispatch queue, not in
/// signal context), so a command can stop cleanly and print its summary.
final class SignalTrap {
    private var sources: [DispatchSourceSignal] = []

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
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
