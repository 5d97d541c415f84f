import HubDomain
import Testing

@Suite("Presence and resume")
struct PresenceTests {
    static func disconnect(_ member: Member) async {
        await member.session.disconnected(userId: member.id, linkId: member.link.linkId)
    }

    static func resume(_ h: Harness, _ member: Member, token: String? = nil, lastSeq: Int? = nil,
                       ref: String? = nil) async throws(HubError) -> RecordingLink {
        let link = RecordingLink()
        _ = try await h.hub.resume(user: member.user, resumeToken: token ?? member.resumeToken ?? "",
                                   lastSeq: lastSeq ?? member.link.lastSeq, link: link, ref: ref)
        return link
    }

    @Test func disconnectIsAnnouncedToTheOthers() async throws {
        let h = Harness()
        let members = try await h.group(3)
        let (alice, bob, carol) = (members[0], members[1], members[2])
        await Self.disconnect(bob)
        for member in [alice, carol] {
            guard case .participants(let change, let list)? = member.link.events.last else {
                Issue.record("\(member.id): \(member.link.events)")
                continue
            }
            #expect(change == PresenceChange(userId: Users.bob.id, kind: .disconnected))
            #expect(list.first { $0.userId == Users.bob.id }?.connected == false)
            #expect(list.count == 3)
        }
        #expect(!bob.link.presenceChanges.contains { $0.kind == .disconnected }) // gone: not told
    }

    @Test func staleDisconnectIsIgnored() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let seq = await members[0].session.currentSeq
        await members[0].session.disconnected(userId: Users.bob.id, linkId: members[1].link.linkId &+ 1_000_000)
        await members[0].session.disconnected(userId: Users.erin.id, linkId: members[1].link.linkId)
        #expect(await members[0].session.currentSeq == seq)
        #expect(await members[0].session.participants().allSatisfy(\.connected))
    }

    @Test func resumeReplaysExactlyTheMissedBroadcastsInOrder() async throws {
        let h = Harness()
        let members = try await h.group(3)
        let (alice, bob, carol) = (members[0], members[1], members[2])
        try await bob.say("antes")
        let lastSeen = bob.link.lastSeq
        await Self.disconnect(bob)
        try await alice.say("uno")
        try await carol.say("dos")
        try await alice.say("tres")
        let link = try await Self.resume(h, bob, lastSeq: lastSeen, ref: "res-1")
        let resumed = try #require(link.resumed)
        // Missed: bob disconnected, three lines.
        #expect(resumed.replayed == 4)
        #expect(resumed.snapshot == nil)
        #expect(resumed.ref == "res-1")
        #expect(resumed.resumeToken != bob.resumeToken)
        guard case .reply? = link.records.first else {
            Issue.record("the resumed reply must come first: \(link.records)")
            return
        }
        #expect(link.seqs == Array((lastSeen + 1)...(lastSeen + 5)))
        #expect(link.lines.map(\.textNative) == ["uno", "dos", "tres"])
        // The replayed events are the very ones the others got.
        let aliceTail = alice.link.delivered.filter { $0.seq > lastSeen }
        #expect(Array(link.delivered.prefix(4)).map(\.seq) == aliceTail.prefix(4).map(\.seq))
        #expect(zip(link.delivered, aliceTail).allSatisfy { $0 === $1 })
        // Then everyone is told bob is back.
        #expect(link.presenceChanges.last == PresenceChange(userId: Users.bob.id, kind: .reconnected))
        #expect(alice.link.presenceChanges.last == PresenceChange(userId: Users.bob.id, kind: .reconnected))
        #expect(await alice.session.participants().allSatisfy(\.connected))
    }

    @Test func resumedMemberGetsLaterBroadcastsWithoutGaps() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        await Self.disconnect(bob)
        try await alice.say("uno")
        let link = try await Self.resume(h, bob)
        try await alice.say("dos")
        let first = try #require(bob.link.seqs.last ?? bob.snapshot?.seq)
        let last = await alice.session.currentSeq
        #expect(link.seqs == Array((first + 1)...last))
    }

    @Test func resumeWithNothingMissedReplaysNothing() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let bob = members[1]
        await Self.disconnect(bob)
        let current = await bob.session.currentSeq
        let link = try await Self.resume(h, bob, lastSeq: current)
        #expect(link.resumed?.replayed == 0)
        #expect(link.lines.isEmpty)
        #expect(link.presenceChanges == [PresenceChange(userId: Users.bob.id, kind: .reconnected)])
    }

    @Test func resumeBeyondTheReplayBufferSendsASnapshot() async throws {
        var configuration = HubConfiguration()
        configuration.replayBufferSize = 4
        let h = Harness(configuration: configuration)
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        await Self.disconnect(bob)
        for index in 1...8 { try await alice.say("frase \(index)") }
        let link = try await Self.resume(h, bob, lastSeq: 2)
        let resumed = try #require(link.resumed)
        #expect(resumed.replayed == 0)
        let snapshot = try #require(resumed.snapshot)
        #expect(snapshot.lines.count == 8)
        #expect(snapshot.seq == 11) // 2 joins, disconnect, 8 lines
        #expect(snapshot.you.userId == Users.bob.id)
        #expect(link.seqs == [12]) // only the reconnected broadcast follows
    }

    @Test
    func theLastReplayBufferSizeBroadcastsAreAlwaysReplayed() async throws {
        var configuration = HubConfiguration()
        configuration.replayBufferSize = 4
        let h = Harness(configuration: configuration)
        let alice = try await h.host()                      // seq 1
        await Self.disconnect(alice)                         // seq 2
        let code = try #require(alice.session.joinCode)
        let bob = try await h.join(Users.bob, code: code)    // seq 3
        try await bob.say("uno")                             // seq 4
        try await bob.say("dos")                             // seq 5
        // Alice saw seq 1 and missed 4 broadcasts: no more than the buffer holds.
        let link = try await Self.resume(h, alice, lastSeq: 1)
        #expect(link.resumed?.replayed == 4)
        #expect(link.resumed?.snapshot == nil)
    }

    @Test func wrongTokenIsRefused() async throws {
        let h = Harness()
        let members = try await h.group(2)
        await Self.disconnect(members[1])
        #expect(await errorCode { _ = try await Self.resume(h, members[1], token: "0123456789abcdef0123456789abcdef") } == .invalidResumeToken)
        #expect(await errorCode { _ = try await Self.resume(h, members[1], token: members[0].resumeToken) } == .invalidResumeToken)
        #expect(await members[0].session.participants().last?.connected == false)
    }

    @Test func aTokenStopsWorkingOnceTheNextOneIsUsed() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let bob = members[1]
        await Self.disconnect(bob)
        let first = try await Self.resume(h, bob)                 // the join's token → a new one
        let second = try #require(first.resumed?.resumeToken)
        // While the connection given the new token is there, the presented one opens nothing.
        #expect(await errorCode { _ = try await Self.resume(h, bob) } == .invalidResumeToken)
        await bob.session.disconnected(userId: bob.id, linkId: first.linkId)
        // That connection is gone before the new token was ever used (its answer may have been
        // lost with it): the presented token opens the seat again, and the unused one is void.
        let again = try await Self.resume(h, bob)
        let third = try #require(again.resumed?.resumeToken)
        await bob.session.disconnected(userId: bob.id, linkId: again.linkId)
        #expect(await errorCode { _ = try await Self.resume(h, bob, token: second) } == .invalidResumeToken)
        // Using the newest token retires the older ones for good.
        let last = try await Self.resume(h, bob, token: third)
        await bob.session.disconnected(userId: bob.id, linkId: last.linkId)
        #expect(await errorCode { _ = try await Self.resume(h, bob) } == .invalidResumeToken)
        _ = try await Self.resume(h, bob, token: third)
    }

    @Test func lastSeqOutOfRangeIsRefused() async throws {
        let h = Harness()
        let members = try await h.group(2)
        await Self.disconnect(members[1])
        let current = await members[0].session.currentSeq
        #expect(await errorCode { _ = try await Self.resume(h, members[1], lastSeq: current + 1) } == .invalidLastSeq)
        #expect(await errorCode { _ = try await Self.resume(h, members[1], lastSeq: -1) } == .invalidLastSeq)
    }

    @Test func resumeWithoutASeatIsRefused() async throws {
        let h = Harness()
        _ = try await h.host()
        let code = await errorCode {
            _ = try await h.hub.resume(user: Users.erin, resumeToken: "0123456789abcdef0123456789abcdef", lastSeq: 0, link: RecordingLink(), ref: nil)
        }
        #expect(code == .invalidResumeToken)
    }

    @Test func resumingOnASecondConnectionReplacesTheFirst() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        let seq = await alice.session.currentSeq
        let link = try await Self.resume(h, bob)
        #expect(bob.link.detaches == [.replaced])
        #expect(await alice.session.currentSeq == seq) // still connected: nothing to announce
        try await alice.say("hola")
        #expect(link.lines.count == 1)
        #expect(bob.link.lines.isEmpty)
        // The old connection closing later changes nothing.
        await Self.disconnect(bob)
        #expect(await alice.session.participants().allSatisfy(\.connected))
    }

    @Test func seatIsHeldUntilTheGraceWindowEnds() async throws {
        var configuration = HubConfiguration()
        configuration.graceWindowMillis = 10_000
        let h = Harness(configuration: configuration)
        let members = try await h.group(3)
        let (alice, bob) = (members[0], members[1])
        await Self.disconnect(bob)
        h.clock.advance(9_999)
        await h.hub.tick()
        #expect(await alice.session.participants().count == 3)
        h.clock.advance(1)
        await h.hub.tick()
        #expect(alice.link.presenceChanges.last == PresenceChange(userId: Users.bob.id, kind: .expired))
        #expect(await alice.session.participants().map(\.userId) == [Users.alice.id, Users.carol.id])
        #expect(await h.hub.session(of: Users.bob.id) == nil)
        #expect(await errorCode { _ = try await Self.resume(h, bob) } == .invalidResumeToken)
        _ = try await h.solo(Users.bob) // the seat is released
    }

    @Test func expiredPlayerCanRejoinByCodeAndKeepsTheirRole() async throws {
        var configuration = HubConfiguration()
        configuration.graceWindowMillis = 1_000
        let h = Harness(configuration: configuration)
        let members = try await h.group(2)
        let bob = members[1]
        try await bob.say("uno")
        await Self.disconnect(bob)
        h.clock.advance(1_000)
        await h.hub.tick()
        let code = try #require(members[0].session.joinCode)
        let again = try await h.join(Users.bob, code: code)
        #expect(again.snapshot?.you.roleName == "Customer")
        #expect(again.snapshot?.lines.count == 1)
        #expect(await members[0].session.participants().count == 2)
    }

    @Test func leavingIsAnnouncedAndDetaches() async throws {
        let h = Harness()
        let members = try await h.group(3)
        try await members[2].session.leave(userId: Users.carol.id)
        #expect(members[2].link.detaches == [.left])
        #expect(members[0].link.presenceChanges.last == PresenceChange(userId: Users.carol.id, kind: .left))
        #expect(await h.hub.session(of: Users.carol.id) == nil)
        #expect(await errorCode { try await members[2].say("hola") } == .notInSession)
        #expect(await errorCode { try await members[2].session.leave(userId: Users.carol.id) } == .notInSession)
    }

    @Test func removedParticipantIsDetachedAndAnnounced() async throws {
        let h = Harness()
        let members = try await h.group(3)
        try await members[0].session.remove(userId: Users.bob.id)
        #expect(members[1].link.detaches == [.removed])
        #expect(members[2].link.presenceChanges.last == PresenceChange(userId: Users.bob.id, kind: .removed))
        #expect(await h.hub.session(of: Users.bob.id) == nil)
    }

    @Test func hostLeavingHandsHostingToTheNextConnectedPlayer() async throws {
        let h = Harness()
        let members = try await h.group(4)
        await Self.disconnect(members[1]) // Bob is next in line, but away
        try await members[0].session.leave(userId: Users.alice.id)
        let dave = members[3]
        let tail = Array(dave.link.events.suffix(2))
        #expect(tail.count == 2)
        if case .participants(let change, _) = tail.first {
            #expect(change == PresenceChange(userId: Users.alice.id, kind: .left))
        } else {
            Issue.record("expected participants(left), got \(tail)")
        }
        #expect(tail.last == .hostChanged(userId: Users.carol.id))
        #expect(await dave.session.participants().filter(\.isHost).map(\.userId) == [Users.carol.id])
        // The new host may end the session; the old one is gone.
        try await dave.session.end(by: Users.carol.id)
        #expect(await dave.session.summary?.cause == .hostEnded)
    }

    @Test func hostLeavingHandsHostingToTheNextPlayerInJoinOrder() async throws {
        let h = Harness()
        let members = try await h.group(3)
        try await members[0].session.leave(userId: Users.alice.id)
        #expect(members[2].link.events.last == .hostChanged(userId: Users.bob.id))
        #expect(await errorCode { try await members[2].session.end(by: Users.carol.id) } == .notAllowed)
    }

    @Test func hostExpiringHandsHostingOn() async throws {
        var configuration = HubConfiguration()
        configuration.graceWindowMillis = 5_000
        let h = Harness(configuration: configuration)
        let members = try await h.group(2)
        await Self.disconnect(members[0])
        h.clock.advance(5_000)
        await h.hub.tick()
        #expect(members[1].link.events.contains(.hostChanged(userId: Users.bob.id)))
        #expect(await members[1].session.participants() == [
            ParticipantInfo(userId: Users.bob.id, displayName: "Bob", roleName: "Customer", mode: .client, isHost: true, connected: true),
        ])
    }

    @Test func everyoneGoneEndsTheSessionAsAbandonedAndSavesIt() async throws {
        var configuration = HubConfiguration()
        configuration.graceWindowMillis = 1_000
        let h = Harness(configuration: configuration, premium: [Users.alice.id, Users.bob.id])
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        try await alice.say("hola")
        try await bob.session.leave(userId: Users.bob.id)
        await Self.disconnect(alice)
        h.clock.advance(1_000)
        await h.hub.tick()
        #expect(await alice.session.isOver)
        let summary = try #require(await alice.session.summary)
        #expect(summary.cause == .abandoned)
        #expect(summary.participants.map(\.userId) == [Users.alice.id, Users.bob.id])
        let saved = try #require(h.history.sessions(of: Users.alice.id).first)
        #expect(saved.cause == .abandoned)
        #expect(saved.lines.map(\.textNative) == ["hola"])
        #expect(h.history.sessions(of: Users.bob.id).count == 1)
        #expect(await h.hub.liveSessionCount == 0)
        #expect(await h.hub.session(of: Users.alice.id) == nil)
    }

    @Test func soloPlayerWhoNeverReturnsEndsTheSession() async throws {
        let h = Harness()
        let alice = try await h.solo()
        await Self.disconnect(alice)
        h.clock.advance(30_000) // default grace window
        await h.hub.tick()
        #expect(await alice.session.summary?.cause == .abandoned)
        #expect(await h.hub.liveSessionCount == 0)
    }
}
