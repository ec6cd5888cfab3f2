/// Remembers which URLs were seen, in 16 bytes each (two independently seeded
/// 64-bit hashes), so a million-line list stays a few tens of megabytes.
struct URLDeduplicator {
    private struct Key: Hashable {
        let first: Int
        let second: Int
    }

    private var seen: Set<Key> = []

    /// True the first time a URL is offered.
    mutating func insert(_ url: String) -> Bool {
        var first = Hasher()
        first.combine(url)
        var second = Hasher()
        second.combine(0x5EED)
        second.combine(url)
        return seen.insert(Key(first: first.finalize(), second: second.finalize())).inserted
    }
}
