import HubDomain
import Testing

/// Two hubs on one shared store (``InMemoryCluster``, a model of what PostgreSQL holds): routing
/// by join code and seat, one seat per user across nodes, and adoption of a dead node's sessions
/// with fencing of the old owner (issue 10, items 2–4).
@Suite("Cluster: routing, seats, adoption")
struct ClusterTests {
    struct Pair {
        let cluster = InMemoryCluster()
        let a: Harness
        let b: Harness
        let nodeA: InMemoryCluster.Node
        let nodeB: InMemoryCluster.Node

        init() {
            nodeA = cluster.node("n1")
            nodeB = cluster.node("n2")
            let tokens = SigningResumeTokens()
            a = Harness(premium: [Users.alice.id], journalOverride: nodeA, resumeTokens: tokens, directory: nodeA)
            b = Harness(premium: [Users.alice.id], journalOverride: nodeB, resumeTokens: tokens, directory: nodeB)
        }
    }

    @Test func aJoinOnAnotherNodeIsSentToTheOwner() async throws {
        let pair = Pair()
        let alice = try await pair.a.host(Users.alice)
        let code = try #require(alice.session.joinCode)
        let error = await hubError { _ = try await pair.b.join(Users.bob, code: code.lowercased()) }
        #expect(error?.code == .sessionElsewhere)
        #expect(error?.location == pair.nodeA.location)
        // Nothing was taken on the way: Bob joins on the owner.
        let bob = try await pair.a.join(Users.bob, code: code)
        #expect(bob.session.id == alice.session.id)
        // An unknown code is still unknown everywhere.
        #expect(await errorCode { _ = try await pair.b.join(Users.carol, code: "ZZZZZZ") } == .unknownJoinCode)
    }

    @Test func aResumeOnAnotherNodeIsSentToTheOwnerAndWelcomeNamesIt() async throws {
        let pair = Pair()
        let alice = try await pair.a.solo()
        let token = try #require(alice.resumeToken)
        let error = await hubError {
            _ = try await pair.b.hub.resume(user: Users.alice, resumeToken: token, lastSeq: 1, link: RecordingLink(), ref: nil)
        }
        #expect(error?.code == .sessionElsewhere)
        #expect(error?.location?.nodeId == "n1")
        #expect(await pair.b.hub.seatPlacement(of: Users.alice.id) == SessionPlacement(sessionId: alice.session.id, owner: pair.nodeA.location))
        #expect(await pair.a.hub.seatPlacement(of: Users.alice.id)?.owner?.nodeId == "n1")
        #expect(await pair.b.hub.seatPlacement(of: Users.bob.id) == nil)
    }

    @Test func aUserHoldsOneSeatInTheWholeCluster() async throws {
        let pair = Pair()
        let alice = try await pair.a.solo()
        let error = await hubError { _ = try await pair.b.solo(Users.alice) }
        #expect(error?.code == .alreadyInSession)
        #expect(error?.location?.nodeId == "n1")
        #expect(await pair.b.hub.liveSessionCount == 0, "the refused session is not kept")
        // Once the seat is given up, the user may play anywhere.
        try await alice.session.leave(userId: Users.alice.id)
        _ = try await pair.b.solo(Users.alice)
    }

    @Test func aSurvivorAdoptsTheSessionsOfADeadNodeAndTheOldOwnerIsFenced() async throws {
        let pair = Pair()
        let members = try await pair.a.group(2)
        let (alice, bob) = (members[0], members[1])
        try await alice.session.say(userId: Users.alice.id, textNative: "hola", textTranslated: "", clientId: "c1", ref: nil)
        try await bob.say("buenas")
        let lastSeq = alice.link.lastSeq

        // n1 stops answering; n2 claims its sessions and rebuilds them from the shared journal.
        pair.cluster.crash("n1")
        #expect(try await pair.nodeB.deadNodes(timeout: .seconds(60), grace: .zero) == ["n1"])
        let claimed = try await pair.nodeB.claimSessions(limit: 100)
        #expect(claimed.map(\.sessionId) == [alice.session.id])
        let report = await pair.b.hub.adopt(claimed, from: pair.nodeB)
        #expect(report.resumable == 1)
        let adopted = try #require(await pair.b.hub.session(id: alice.session.id))

        // Players resume on the new owner with the tokens they hold, missing nothing.
        let aliceLink = RecordingLink()
        _ = try await pair.b.hub.resume(user: Users.alice, resumeToken: try #require(alice.resumeToken), lastSeq: lastSeq,
                                        link: aliceLink, ref: nil)
        let bobLink = RecordingLink()
        _ = try await pair.b.hub.resume(user: Users.bob, resumeToken: try #require(bob.resumeToken), lastSeq: 0,
                                        link: bobLink, ref: nil)
        #expect(bobLink.lines.map(\.textNative) == ["hola", "buenas"], "a full replay from the shared journal")
        #expect(bobLink.lines.first?.clientId == "c1")
        #expect(await errorCode {
            try await adopted.say(userId: Users.alice.id, textNative: "hola", textTranslated: "", clientId: "c1", ref: nil)
        } == .duplicateLine)
        try await adopted.say(userId: Users.alice.id, textNative: "otra", textTranslated: "", ref: nil)
        #expect(aliceLink.lines.map(\.textNative) == ["otra"])

        // n1 wakes up: its next write is fenced; its members are let go and it forgets the session.
        #expect(await errorCode { try await bob.say("tarde") } == .sessionMoved)
        #expect(alice.link.detaches == [.moved] && bob.link.detaches == [.moved])
        // (The session tells the hub from a task of its own: waited for, bounded.)
        let deadline = ContinuousClock.now + .seconds(10)
        while await pair.a.hub.session(id: alice.session.id) != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await pair.a.hub.session(id: alice.session.id) == nil)
        let texts = pair.cluster.entries(of: alice.session.id).compactMap { entry -> String? in
            if case .line(let line, _) = entry.event { return line.textNative }
            return nil
        }
        #expect(texts == ["hola", "buenas", "otra"], "nothing from the fenced node, nothing twice")
        let seqs = pair.cluster.entries(of: alice.session.id).map(\.seq)
        #expect(seqs == Array(1...seqs.count), "seq without gap or duplicate: \(seqs)")

        // The adopted session ends normally on its new owner and is saved once.
        try await adopted.end(by: await adopted.participants().first(where: \.isHost)?.userId ?? Users.alice.id)
        #expect(pair.b.history.sessions(of: Users.alice.id).count == 1)
        #expect(pair.a.history.sessions(of: Users.alice.id).isEmpty)
    }
}

/// How a node is judged dead (the in-memory model of the PostgreSQL registry's rules).
@Suite("Cluster: liveness")
struct ClusterLivenessTests {
    @Test func aLostProofCountsOnlyAfterTheGraceAndSilenceOnlyAfterTheTimeout() async throws {
        let cluster = InMemoryCluster()
        let n1 = cluster.node("n1"), n2 = cluster.node("n2")
        try await n1.join()
        try await n2.join()
        cluster.crash("n1")
        // A node that lost its proof but heart-beat just now may be reconnecting (a database restart).
        #expect(try await n2.deadNodes(timeout: .seconds(60), grace: .seconds(60)).isEmpty)
        #expect(try await n1.heartbeat(), "a silenced heartbeat does not know yet")
        try await Task.sleep(for: .milliseconds(30))
        #expect(try await n2.deadNodes(timeout: .seconds(60), grace: .milliseconds(10)) == ["n1"])
        // A live node is judged by its heartbeat alone.
        let n3 = cluster.node("n3")
        try await n3.join()
        try await Task.sleep(for: .milliseconds(30))
        #expect(try await n2.deadNodes(timeout: .seconds(60), grace: .milliseconds(10)).isEmpty)
        #expect(try await n2.deadNodes(timeout: .milliseconds(10), grace: .seconds(60)) == ["n3"])
        #expect(try await n3.heartbeat() == false)
    }
}
