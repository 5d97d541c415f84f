import HubDomain

/// The bot's deterministic choices: a ``HubDomain/SplitMix64`` per player, so a run with
/// `--seed` makes the same recast and accept choices every time.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var base: SplitMix64

    /// A generator for `seed`; `stream` gives each player its own sequence.
    init(seed: UInt64, stream: UInt64 = 0) {
        base = SplitMix64(seed: seed &+ (stream &* 0x9E37_79B9_7F4A_7C15) &+ 0x2545_F491_4F6C_DD1D)
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 { base.next() }

    /// True with probability `probability` (0…1).
    mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && Double.random(in: 0..<1, using: &self) < probability
    }
}
