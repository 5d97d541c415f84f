/// A small deterministic random number generator (SplitMix64), so a run with `--seed` makes the
/// same recast and accept choices every time.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator for `seed`; `stream` gives each player its own sequence.
    init(seed: UInt64, stream: UInt64 = 0) {
        state = seed &+ (stream &* 0x9E37_79B9_7F4A_7C15) &+ 0x2545_F491_4F6C_DD1D
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `probability` (0…1).
    mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && Double.random(in: 0..<1, using: &self) < probability
    }
}
