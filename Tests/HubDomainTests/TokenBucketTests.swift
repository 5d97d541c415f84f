import HubDomain
import Testing

@Suite("TokenBucket")
struct TokenBucketTests {
    /// Calls `take(now:)` at each time in turn and collects the answers.
    static func take(_ bucket: inout TokenBucket, _ rate: TokenBucket.Rate, at times: [Int64]) -> [Bool] {
        times.map { bucket.take(now: $0, rate: rate) }
    }

    @Test func allowsABurstOfCapacityThenRefuses() {
        let rate = TokenBucket.Rate(capacity: 3, ratePerSecond: 1)
        var bucket = TokenBucket(full: rate)
        let answers = Self.take(&bucket, rate, at: [0, 0, 0, 0, 0])
        #expect(answers == [true, true, true, false, false])
    }

    @Test func refillsAtTheRate() {
        let rate = TokenBucket.Rate(capacity: 2, ratePerSecond: 4)
        var bucket = TokenBucket(full: rate)
        // 249 ms at 4/s is 0.996 of a token; 250 ms is one.
        let answers = Self.take(&bucket, rate, at: [1_000, 1_000, 1_000, 1_249, 1_250, 1_250])
        #expect(answers == [true, true, false, false, true, false])
    }

    @Test func accumulatesFractionsAcrossRefusedCalls() {
        let rate = TokenBucket.Rate(capacity: 1, ratePerSecond: 1)
        var bucket = TokenBucket(full: rate)
        let answers = Self.take(&bucket, rate, at: [0, 250, 750, 1_000, 1_000])
        #expect(answers == [true, false, false, true, false])
    }

    @Test func neverHoldsMoreThanCapacity() {
        let rate = TokenBucket.Rate(capacity: 2, ratePerSecond: 100)
        var bucket = TokenBucket(full: rate)
        // An hour idle refills to 2, not 360 000.
        let answers = Self.take(&bucket, rate, at: [0, 3_600_000, 3_600_000, 3_600_000])
        #expect(answers == [true, true, true, false])
    }

    @Test func timeGoingBackwardsAddsNothing() {
        let rate = TokenBucket.Rate(capacity: 1, ratePerSecond: 1)
        var bucket = TokenBucket(full: rate)
        // Refill counts from the latest time seen (10 000), not from 5 000.
        let answers = Self.take(&bucket, rate, at: [10_000, 5_000, 10_999, 11_000])
        #expect(answers == [true, false, false, true])
    }

    @Test func zeroRateNeverRefills() {
        let rate = TokenBucket.Rate(capacity: 1, ratePerSecond: 0)
        var bucket = TokenBucket(full: rate)
        let answers = Self.take(&bucket, rate, at: [0, 1_000_000_000])
        #expect(answers == [true, false])
    }

    @Test func capacityAndRateAreClamped() {
        let rate = TokenBucket.Rate(capacity: 0, ratePerSecond: -5)
        var bucket = TokenBucket(full: rate)
        #expect(rate.capacity == 1)
        #expect(rate.ratePerSecond == 0)
        let answers = Self.take(&bucket, rate, at: [0, 60_000])
        #expect(answers == [true, false])
    }
}
