import Testing
@testable import WebSocketTransport

/// The connection counts' transitions, without I/O.
@Suite struct ConnectionCountsTests {
    func make(perAddress: Int = 4, unauthenticated: Int = 2) -> ConnectionCounts {
        ConnectionCounts(limits: .init(perAddress: perAddress, unauthenticatedPerAddress: unauthenticated))
    }

    @Test func unauthenticatedConnectionsPerAddressAreCapped() {
        var counts = make()
        for id in 1...5 as ClosedRange<UInt64> { counts.open(id) }
        #expect(counts.attribute(1, to: "10.0.0.1") == nil)
        #expect(counts.attribute(2, to: "10.0.0.1") == nil)
        #expect(counts.attribute(3, to: "10.0.0.1") == .unauthenticatedPerAddress)
        #expect(counts.attribute(4, to: "10.0.0.2") == nil)  // another address is not affected
        // One authenticates: its place among the unauthenticated is free again.
        #expect(counts.authenticate(1, as: "ana", limit: 8) == nil)
        #expect(counts.attribute(5, to: "10.0.0.1") == nil)
        #expect(counts.open["10.0.0.1"] == 3)  // 1, 2 and 5 (3 was refused)
        #expect(counts.unauthenticated["10.0.0.1"] == 2)
    }

    @Test func openConnectionsPerAddressAreCapped() {
        var counts = make(perAddress: 3, unauthenticated: 3)
        for id in 1...3 as ClosedRange<UInt64> {
            #expect(counts.attribute(id, to: "a") == nil)
            counts.leaveUnauthenticated(id)
        }
        #expect(counts.attribute(4, to: "a") == .perAddress)
        counts.release(2)
        #expect(counts.attribute(5, to: "a") == nil)
    }

    @Test func principalsAreCappedAndReleased() {
        var counts = make(perAddress: 10, unauthenticated: 10)
        for id in 1...3 as ClosedRange<UInt64> { counts.open(id); _ = counts.attribute(id, to: "a") }
        #expect(counts.authenticate(1, as: "ana", limit: 2) == nil)
        #expect(counts.authenticate(1, as: "ana", limit: 2) == nil)  // again: no change
        #expect(counts.authenticate(2, as: "ana", limit: 2) == nil)
        #expect(counts.authenticate(3, as: "ana", limit: 2) == .perUser)
        #expect(counts.unauthenticated["a"] == 1)  // the refused one stays unauthenticated
        counts.release(1)
        #expect(counts.authenticate(3, as: "ana", limit: 2) == nil)
        #expect(counts.principals["ana"] == 2)
    }

    @Test func aConnectionReleasedBeforeItsEndpointAuthenticatesCountsNowhere() {
        var counts = make()
        counts.open(1)
        #expect(counts.attribute(1, to: "a") == nil)
        counts.release(1)
        // The endpoint's check arrives after the close (it runs in a task): no lease, no count.
        #expect(counts.authenticate(1, as: "ana", limit: 1) == nil)
        #expect(counts.principals.isEmpty && counts.leaseCount == 0)
    }

    @Test func aProxiedConnectionMovesFromAddressToAddress() {
        var counts = make(perAddress: 1, unauthenticated: 1)
        #expect(counts.attribute(1, to: "a") == nil)
        #expect(counts.attribute(1, to: "a") == nil)  // the same address again: no change
        #expect(counts.attribute(1, to: "b") == nil)
        #expect(counts.open == ["b": 1])
        #expect(counts.attribute(2, to: "b") == .perAddress)
        #expect(counts.attribute(1, to: "c") == nil)
        #expect(counts.attribute(2, to: "b") == nil)
    }

    @Test func everythingReturnsToZeroAfterAnyMixOfTransitions() {
        var counts = make(perAddress: 5, unauthenticated: 3)
        var generator = SystemRandomNumberGenerator()
        var open: [UInt64] = []
        for id in 1...5_000 as ClosedRange<UInt64> {
            let address = "10.0.0.\(Int.random(in: 1...4, using: &generator))"
            counts.open(id)
            if counts.attribute(id, to: address) == nil { open.append(id) } else { counts.release(id); continue }
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: counts.leaveUnauthenticated(id)
            case 1: _ = counts.authenticate(id, as: "user\(id % 3)", limit: 2)
            case 2: _ = counts.attribute(id, to: "10.0.0.\(Int.random(in: 1...4, using: &generator))")
            default: break
            }
            if Bool.random(using: &generator), let victim = open.randomElement(using: &generator) {
                counts.release(victim)
                open.removeAll { $0 == victim }
            }
            #expect(counts.open.values.allSatisfy { $0 <= 5 })
            #expect(counts.unauthenticated.values.allSatisfy { $0 <= 3 })
        }
        for id in open { counts.release(id) }
        #expect(counts.open.isEmpty && counts.unauthenticated.isEmpty && counts.principals.isEmpty && counts.leaseCount == 0)
    }
}
