/// A token bucket: ``Rate/capacity`` requests at once, refilled at ``Rate/ratePerSecond``.
/// Time is passed in (epoch ms), so it is exact in tests.
///
/// The bucket holds only its state (16 bytes); its rate is passed to ``take(now:rate:)``, so
/// that a connection with several buckets of the same kinds as every other keeps no copies of
/// the limits.
public struct TokenBucket: Sendable {
    /// A bucket's size and refill rate.
    public struct Rate: Sendable, Equatable {
        /// Burst size (at least 1).
        public let capacity: Double
        /// Tokens added per second (at least 0).
        public let ratePerSecond: Double

        /// A rate of `ratePerSecond` with bursts of `capacity`, both clamped to what makes sense.
        public init(capacity: Int, ratePerSecond: Double) {
            self.capacity = Double(max(1, capacity))
            self.ratePerSecond = max(0, ratePerSecond)
        }
    }

    private var tokens: Double
    /// The latest time seen, or `.min` before the first take.
    private var updatedAt: Int64 = .min

    /// Creates a full bucket for `rate`.
    public init(full rate: Rate) {
        self.tokens = rate.capacity
    }

    /// Takes one token if there is one, refilling at `rate` (the one the bucket was made for).
    public mutating func take(now: Int64, rate: Rate) -> Bool {
        if updatedAt != .min, now > updatedAt {
            tokens = min(rate.capacity, tokens + Double(now - updatedAt) / 1000 * rate.ratePerSecond)
        }
        updatedAt = max(updatedAt, now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
