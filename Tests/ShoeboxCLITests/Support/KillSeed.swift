import Foundation

/// The random moments of a kill test, from a seed that replays them: SHOEBOX_KILL_SEED when
/// set, else the time. The seed is printed when made and belongs in every failure message
/// (`label`), so that `SHOEBOX_KILL_SEED=N swift test --filter …` picks the same moments.
/// SplitMix64: small, and the same sequence on every platform and Swift version.
struct KillSeed: RandomNumberGenerator {
    let seed: UInt64
    private var state: UInt64

    init(_ test: String) {
        let given = ProcessInfo.processInfo.environment["SHOEBOX_KILL_SEED"].flatMap { UInt64($0) }
        seed = given ?? UInt64(Date().timeIntervalSince1970 * 1000)
        state = seed
        print("\(test): SHOEBOX_KILL_SEED=\(seed)\(given == nil ? " (from the time)" : "")")
    }

    /// A fixed sequence, whatever the environment says (the order of a test's list).
    init(fixed seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// "SHOEBOX_KILL_SEED=N", to end every failure message with.
    var label: String { "SHOEBOX_KILL_SEED=\(seed)" }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
