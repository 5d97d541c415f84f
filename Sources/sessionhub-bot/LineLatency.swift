/// How long the bot's own lines took: from a `say` going out to the player's own copy of the
/// `line` broadcast (the hub journaled it and sent it to everyone). In the `--json` summary as
/// `lineLatencyMs`; null when no line was acknowledged.
struct LineLatency: Sendable, Encodable, Equatable {
    /// Lines measured.
    var count: Int
    /// The median, in milliseconds.
    var p50: Double
    /// The 99th percentile (nearest rank), in milliseconds.
    var p99: Double
    /// The slowest, in milliseconds.
    var max: Double

    /// The figures of `samples`; nil when there are none.
    init?(_ samples: [Duration]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.map { Double($0 / .microseconds(1)) / 1000 }.sorted()
        func rank(_ fraction: Double) -> Double {
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return Self.rounded(sorted[Swift.min(Swift.max(index, 0), sorted.count - 1)])
        }
        count = sorted.count
        p50 = rank(0.5)
        p99 = rank(0.99)
        max = Self.rounded(sorted[sorted.count - 1])
    }

    private static func rounded(_ ms: Double) -> Double { (ms * 100).rounded() / 100 }
}
