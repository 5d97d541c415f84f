@testable import SessionHubServer
import Testing

/// The rules of a node's standing in its cluster, without a database or clock.
@Suite("Cluster membership")
struct ClusterMembershipTests {
    @Test func aJoinedNodeTakesPlayersAndSweepsOnEveryHeartbeat() {
        var membership = ClusterMembership()
        #expect(membership.tick() == [.join])
        #expect(membership.joined() == [.admit(true, reason: nil), .sweep])
        #expect(membership.tick() == [.heartbeat])
        #expect(membership.heartbeat(alive: true) == [.sweep])
        #expect(membership.state == .member)
    }

    @Test func aFailedJoinKeepsTryingWithoutTakingPlayers() {
        var membership = ClusterMembership()
        #expect(membership.joinFailed() == [.admit(false, reason: "not_registered")])
        #expect(membership.tick() == [.join])
    }

    @Test func losingTheDatabaseStopsNewPlayersButKeepsSessions() {
        var membership = ClusterMembership()
        _ = membership.joined()
        #expect(membership.heartbeatFailed() == [.admit(false, reason: "storage_unreachable")])
        #expect(membership.heartbeatFailed() == [], "said once")
        #expect(membership.tick() == [.heartbeat], "keeps trying")
        // Back before the peers declared it dead: nothing was lost, it takes players again.
        #expect(membership.heartbeat(alive: true) == [.admit(true, reason: nil), .sweep])
    }

    @Test func aNodeDeclaredDeadLetsGoOfEverythingAndJoinsAgain() {
        var membership = ClusterMembership()
        _ = membership.joined()
        _ = membership.heartbeatFailed()
        #expect(membership.heartbeat(alive: false) == [.admit(false, reason: "evicted"), .relinquishAll, .join])
        #expect(membership.state == .joining)
        #expect(membership.joined() == [.admit(true, reason: nil), .sweep])
    }

    @Test func aLeavingNodeStopsEverything() {
        var membership = ClusterMembership()
        _ = membership.joined()
        #expect(membership.leave() == [.admit(false, reason: "draining")])
        #expect(membership.tick() == [])
        #expect(membership.heartbeat(alive: false) == [])
        #expect(membership.leave() == [])
    }
}
