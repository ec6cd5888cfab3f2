import Foundation

extension String {
    /// The string in Unicode NFC, as `precomposedStringWithCanonicalMapping` gives,
    /// without going through NSString when the string is ASCII (its own NFC): that
    /// bridge was 5% of the CPU samples of a fetch of 1,000 small files (a tenth of
    /// the archiving thread's), where every library path is folded several times.
    var canonicallyComposed: String {
        utf8.allSatisfy { $0 < 0x80 } ? self : precomposedStringWithCanonicalMapping
    }
}
