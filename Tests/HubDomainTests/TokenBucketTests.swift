import HubDomain
import Testing

@Suite("TokenBucket")
struct TokenBucketTests {
    /// Calls `take(now:)` at each time in turn and collects the answers.
    static func take(_ bucket: inout TokenBucket, at times: [Int64]) -> [Bool] {
        times.map { bucket.take(now: $0) }
    }

    @Test func allowsABurstOfCapacityThenRefuses() {
        var bucket = TokenBucket(capacity: 3, ratePerSecond: 1)
        let answers = Self.take(&bucket, at: [0, 0, 0, 0, 0])
        #expect(answers == [true, true, true, false, false])
    }

    @Test func refillsAtTheRate() {
        var bucket = TokenBucket(capacity: 2, ratePerSecond: 4)
        // 249 ms at 4/s is 0.996 of a token; 250 ms is one.
        let answers = Self.take(&bucket, at: [1_000, 1_000, 1_000, 1_249, 1_250, 1_250])
        #expect(answers == [true, true, false, false, true, false])
    }

    @Test func accumulatesFractionsAcrossRefusedCalls() {
        var bucket = TokenBucket(capacity: 1, ratePerSecond: 1)
        let answers = Self.take(&bucket, at: [0, 250, 750, 1_000, 1_000])
        #expect(answers == [true, false, false, true, false])
    }

    @Test func neverHoldsMoreThanCapacity() {
        var bucket = TokenBucket(capacity: 2, ratePerSecond: 100)
        // An hour idle refills to 2, not 360 000.
        let answers = Self.take(&bucket, at: [0, 3_600_000, 3_600_000, 3_600_000])
        #expect(answers == [true, true, true, false])
    }

    @Test func timeGoingBackwardsAddsNothing() {
        var bucket = TokenBucket(capacity: 1, ratePerSecond: 1)
        // Refill counts from the latest time seen (10 000), not from 5 000.
        let answers = Self.take(&bucket, at: [10_000, 5_000, 10_999, 11_000])
        #expect(answers == [true, false, false, true])
    }

    @Test func zeroRateNeverRefills() {
        var bucket = TokenBucket(capacity: 1, ratePerSecond: 0)
        let answers = Self.take(&bucket, at: [0, 1_000_000_000])
        #expect(answers == [true, false])
    }

    @Test func capacityAndRateAreClamped() {
        var bucket = TokenBucket(capacity: 0, ratePerSecond: -5)
        #expect(bucket.capacity == 1)
        #expect(bucket.ratePerSecond == 0)
        let answers = Self.take(&bucket, at: [0, 60_000])
        #expect(answers == [true, false])
    }
}
