/// stdout gathered into writes of about 64 KiB: a million paths are not a million system calls.
struct BufferedOutput {
    let console: Console
    private var pending = ""

    init(console: Console) {
        self.console = console
        pending.reserveCapacity(1 << 16)
    }

    mutating func line(_ text: String) {
        self.text(text + "\n")
    }

    mutating func text(_ text: String) {
        pending += text
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !pending.isEmpty else { return }
        console.outText(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
