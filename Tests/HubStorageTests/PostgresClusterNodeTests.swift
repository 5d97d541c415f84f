import Foundation
import HubDomain
@testable import HubStorage
@testable import HubStoragePostgres
import PostgresNIO
import Testing

/// The node registry and session directory on PostgreSQL (fresh database per test; skipped
/// without a test server).
@Suite("PostgreSQL cluster node", .enabled(if: PostgresTestDatabase.available))
struct PostgresClusterNodeTests {
    static func node(_ id: String, _ pool: PostgresPool) -> PostgresClusterNode {
        PostgresClusterNode(local: NodeLocation(nodeId: id, publicURL: "ws://front/node/\(id)/ws"),
                            internalURL: "http://\(id)", pool: pool, journal: PostgresJournal(pool: pool, nodeId: id))
    }

    @Test("Two processes with the same node id cannot both join; the id is free again once the first leaves")
    func nodeIdIsExclusive() async throws {
        try await PostgresTestDatabase.with { pool in
            let first = Self.node("n1", pool), second = Self.node("n1", pool)
            try await first.join()
            await #expect(throws: NodeRegistryError.nodeIdInUse("n1")) { try await second.join() }
            #expect(try await first.heartbeat())
            await first.leave()
            try await second.join()
            #expect(try await second.heartbeat())
            await second.leave()
        }
    }

    @Test("A node whose liveness lock is gone is declared dead at once; its sessions are claimed once, at a new epoch")
    func crashAndClaim() async throws {
        try await PostgresTestDatabase.with { pool in
            let n1 = Self.node("n1", pool), n2 = Self.node("n2", pool), n3 = Self.node("n3", pool)
            for node in [n1, n2, n3] { try await node.join() }
            #expect(try await n2.peers().map(\.nodeId) == ["n1", "n3"])
            for index in 0..<3 {
                let header = SessionHeader(sessionId: "s\(index)", scenarioId: "x", joinCode: "C\(index)", maxPlayers: 2, startedAt: Int64(index))
                #expect(try await n1.register(header))
            }
            #expect(try await n2.deadNodes(timeout: .seconds(60), grace: .zero).isEmpty)
            // n1's process dies: its connection (and lock) go; its heartbeat row stays fresh.
            try await Self.closeProof(of: n1)
            // The server ends the closed connection's backend (and frees its lock) a moment later.
            var declared: [String] = []
            for _ in 0..<100 where declared.isEmpty {
                declared = try await n2.deadNodes(timeout: .seconds(60), grace: .zero)
                if declared.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(declared == ["n1"])
            #expect(try await n3.deadNodes(timeout: .seconds(60), grace: .zero).isEmpty, "declared once")
            // Both survivors claim, concurrently, in small batches: each session goes to exactly one.
            async let a = n2.claimSessions(limit: 1)
            async let b = n3.claimSessions(limit: 5)
            let (fromA, fromB) = try await (a, b)
            let more = try await n2.claimSessions(limit: 5)
            let all = (fromA + fromB + more).map(\.sessionId).sorted()
            #expect(all == ["s0", "s1", "s2"])
            for header in fromA + more { #expect(n2.journal.heldEpoch(header.sessionId) == 2) }
            for header in fromB { #expect(n3.journal.heldEpoch(header.sessionId) == 2) }
            // The dead node's placement is gone; a claimed one points at its new owner.
            let placement = try #require(try await n2.locate(joinCode: "C0"))
            #expect(placement.owner?.nodeId != "n1" && placement.owner != nil)
            #expect(try await n1.heartbeat() == false, "the evicted node learns it from its heartbeat")
            for node in [n1, n2, n3] { await node.leave() }
        }
    }

    @Test("A silent node is declared dead after the timeout, on the database's clock")
    func staleHeartbeat() async throws {
        try await PostgresTestDatabase.with { pool in
            let n1 = Self.node("n1", pool), n2 = Self.node("n2", pool)
            try await n1.join()
            try await n2.join()
            try await pool.client.query("UPDATE nodes SET heartbeat_at = clock_timestamp() - interval '10 seconds' WHERE node_id = 'n1'")
            #expect(try await n2.deadNodes(timeout: .seconds(30), grace: .zero).isEmpty)
            #expect(try await n2.deadNodes(timeout: .seconds(5), grace: .zero) == ["n1"])
            #expect(try await n1.heartbeat() == false)
            for node in [n1, n2] { await node.leave() }
        }
    }

    @Test("Join codes are unique among open sessions; one seat per user in the cluster; handover leaves sessions to claim")
    func directory() async throws {
        try await PostgresTestDatabase.with { pool in
            let n1 = Self.node("n1", pool), n2 = Self.node("n2", pool)
            try await n1.join()
            try await n2.join()
            let header = SessionHeader(sessionId: "s1", scenarioId: "x", joinCode: "ABC", maxPlayers: 2, startedAt: 1)
            #expect(try await n1.register(header))
            #expect(try await n2.register(SessionHeader(sessionId: "s2", scenarioId: "x", joinCode: "ABC", maxPlayers: 2, startedAt: 2)) == false)
            #expect(try await n2.locate(joinCode: "ABC") == SessionPlacement(sessionId: "s1", owner: n1.local))
            #expect(try await n1.reserveSeat(userId: "ana", sessionId: "s1") == nil)
            #expect(try await n1.reserveSeat(userId: "ana", sessionId: "s1") == nil, "the same seat again")
            #expect(try await n2.register(SessionHeader(sessionId: "s3", scenarioId: "x", joinCode: nil, maxPlayers: 1, startedAt: 3)))
            #expect(try await n2.reserveSeat(userId: "ana", sessionId: "s3")?.sessionId == "s1")
            #expect(try await n2.seat(of: "ana") == SessionPlacement(sessionId: "s1", owner: n1.local))
            // Rolling upgrade: n1 hands s1 over; nobody owns it until n2 claims it.
            try await n1.handOver(sessionIds: ["s1"])
            #expect(try await n2.seat(of: "ana") == SessionPlacement(sessionId: "s1", owner: nil))
            #expect(try await n2.claimSessions(limit: 10).map(\.sessionId) == ["s1"])
            #expect(try await n1.seat(of: "ana") == SessionPlacement(sessionId: "s1", owner: n2.local))
            try await n2.releaseSeat(userId: "ana", sessionId: "s1")
            #expect(try await n2.reserveSeat(userId: "ana", sessionId: "s3") == nil)
            for node in [n1, n2] { await node.leave() }
        }
    }

    /// Closes a node's liveness connection, as its process dying would.
    static func closeProof(of node: PostgresClusterNode) async throws {
        try await node.dropLivenessConnectionForTests()
    }
}
