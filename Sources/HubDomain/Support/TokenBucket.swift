/// A token bucket: `capacity` requests at once, refilled at `ratePerSecond`. Time is passed in
/// (epoch ms), so it is exact in tests.
public struct TokenBucket: Sendable {
    /// Burst size.
    public let capacity: Double
    /// Tokens added per second.
    public let ratePerSecond: Double
    private var tokens: Double
    private var updatedAt: Int64?

    /// Creates a full bucket.
    public init(capacity: Int, ratePerSecond: Double) {
        self.capacity = Double(max(1, capacity))
        self.ratePerSecond = max(0, ratePerSecond)
        self.tokens = Double(max(1, capacity))
    }

    /// Takes one token if there is one.
    public mutating func take(now: Int64) -> Bool {
        if let updatedAt, now > updatedAt {
            tokens = min(capacity, tokens + Double(now - updatedAt) / 1000 * ratePerSecond)
        }
        updatedAt = max(updatedAt ?? now, now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
