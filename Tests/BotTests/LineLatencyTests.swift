import Testing
@testable import sessionhub_bot

@Suite("The bot's line latency figures")
struct LineLatencyTests {
    @Test("p50, p99 (nearest rank) and max in milliseconds; none without samples")
    func figures() throws {
        #expect(LineLatency([]) == nil)
        let samples = (1...100).map { Duration.milliseconds($0) }.reversed()
        let figures = try #require(LineLatency(Array(samples)))
        #expect(figures.count == 100)
        #expect(figures.p50 == 50)
        #expect(figures.p99 == 99)
        #expect(figures.max == 100)
        let one = try #require(LineLatency([.microseconds(1_234)]))
        #expect(one.p50 == 1.23 && one.p99 == 1.23 && one.max == 1.23)
    }
}
