/// stdout gathered into writes of about 64 KiB: a million paths are not a million system calls.
/// On a terminal each line goes out at once (a person sees the first rows of a slow answer).
struct BufferedOutput {
    let console: Console
    private let limit: Int
    private var pending = ""

    init(console: Console) {
        self.console = console
        limit = console.stdoutIsTerminal ? 1 : 1 << 16
        pending.reserveCapacity(1 << 16)
    }

    mutating func line(_ text: String) {
        pending += text
        self.text("\n")
    }

    mutating func text(_ text: String) {
        pending += text
        if pending.utf8.count >= limit { flush() }
    }

    mutating func flush() {
        guard !pending.isEmpty else { return }
        console.outText(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
