/// A small deterministic random number generator (SplitMix64, Steele, Lea and Flood 2014): the
/// same seed gives the same numbers on every machine and run.
///
/// For choices a run must be able to repeat — the bot's recasts and accepts under `--seed`, the
/// load generator's send phases, and property tests whose failures name the seed that replays
/// them. Not for secrets: ``SecureToken`` draws those from the system's generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
