import HubDomain
import Testing

/// The operator's side of the hub: read-only inspection of live sessions, ending a session and
/// removing a participant (`Hub+Operators`, `LiveSession+Inspection`).
@Suite("Operators")
struct OperatorTests {
    // MARK: Inspection

    @Test func inspectionShowsModeParticipantsCountsAndActivity() async throws {
        let h = Harness()
        let members = try await h.group(3)
        let (alice, bob, carol) = (members[0], members[1], members[2])
        let t0 = TestClock.start
        h.clock.advance(1_000)
        try await alice.say("Hola")                     // t0 + 1 s
        h.clock.advance(1_000)
        try await bob.say("Buenos días")                // t0 + 2 s
        h.clock.advance(10_000)
        try await alice.say("Un café, por favor")       // t0 + 12 s
        h.clock.advance(1_000)
        let lineId = try #require(alice.link.lines.last?.id)
        try await bob.session.recast(userId: Users.bob.id, lineId: lineId, correctedText: "Un café, por favor.",
                                     explanation: nil, issueTypes: [.grammar], ref: nil)   // t0 + 13 s
        h.clock.advance(500)
        await carol.session.disconnected(userId: Users.carol.id, linkId: carol.link.linkId)   // t0 + 13.5 s
        let now = t0 + 14_000

        let all = await h.hub.inspectSessions(now: now)
        #expect(all.count == 1)
        let view = try #require(all.first)
        #expect(view.sessionId == alice.session.id)
        #expect(view.shared)
        #expect(view.joinCode == alice.session.joinCode)
        #expect(view.scenarioId == Fixtures.scenarioId)
        #expect(view.scenarioTitle == "Test Café")
        #expect(view.hostId == Users.alice.id)
        #expect(view.phase == .live)
        #expect(view.startedAt == t0)
        #expect(view.ageSeconds == 14)
        #expect(view.lineCount == 3)
        #expect(view.recastCount == 1)
        #expect(view.acceptedRecastCount == 0)
        #expect(view.seq == (await alice.session.currentSeq))
        #expect(view.lastActivityAt == t0 + 13_500)   // Carol's disconnect
        // Lines and recasts in (t0 + 4 s, t0 + 14 s]: the third line and the recast.
        #expect(view.rateWindowMillis == 10_000)
        #expect(view.messagesPerSecond == 0.2)
        #expect(view.lines == nil && view.recasts == nil)

        #expect(view.participants.map(\.userId) == [Users.alice.id, Users.bob.id, Users.carol.id])
        #expect(view.participants.map(\.status) == [.connected, .connected, .grace])
        #expect(view.participants.map(\.isHost) == [true, false, false])
        #expect(view.participants.map(\.mode) == [.host, .client, .client])
        #expect(view.participants.map(\.linesSpoken) == [2, 1, 0])
        #expect(view.participants[1].recastsGiven == 1)
        #expect(view.participants[0].recastsReceived == 1)
        #expect(view.participants[2].graceDeadline == t0 + 13_500 + h.hub.configuration.graceWindowMillis)
        #expect(view.participants[0].graceDeadline == nil)
        #expect(view.participants.map(\.roleName) == (await alice.session.participants()).map(\.roleName))
    }

    @Test func aYoungSessionsRateIsOverItsAgeAndAnIdleOneIsZero() async throws {
        let h = Harness()
        let solo = try await h.solo()
        h.clock.advance(500)
        try await solo.say("uno")
        try await solo.say("dos")
        try await solo.say("tres")
        // 3 messages in a session 2 s old: the window is its age.
        let young = try #require(await h.hub.inspectSession(id: solo.session.id, now: TestClock.start + 2_000))
        #expect(!young.shared)
        #expect(young.joinCode == nil)
        #expect(young.rateWindowMillis == 2_000)
        #expect(young.messagesPerSecond == 1.5)
        // Under a second old, the window is still 1 s.
        let newborn = try #require(await h.hub.inspectSession(id: solo.session.id, now: TestClock.start + 600))
        #expect(newborn.rateWindowMillis == 1_000)
        #expect(newborn.messagesPerSecond == 3)
        // Nothing in the last 10 s.
        let idle = try #require(await h.hub.inspectSession(id: solo.session.id, now: TestClock.start + 60_000))
        #expect(idle.messagesPerSecond == 0)
        #expect(idle.lastActivityAt == TestClock.start + 500)
    }

    @Test func theDetailCarriesTranscriptAndRecastsAndInspectingChangesNothing() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        try await alice.say("Hola", translated: "Hello")
        let line = try #require(alice.link.lines.first)
        try await bob.session.recast(userId: Users.bob.id, lineId: line.id, correctedText: "¡Hola!",
                                     explanation: "exclamation", issueTypes: [.naturalness], ref: nil)
        try await alice.session.acceptRecast(userId: Users.alice.id, recastId: "r1", ref: nil)
        let seq = await alice.session.currentSeq
        let delivered = alice.link.delivered.count
        let encoded = h.encoder.envelopes.count
        let journaled = h.journal.entries(of: alice.session.id).count

        let detail = try #require(await h.hub.inspectSession(id: alice.session.id, now: h.clock.now()))
        #expect(detail.lines == (await alice.session.transcript()))
        #expect(detail.lines?.map(\.textNative) == ["Hola"])
        #expect(detail.recasts == (await alice.session.allRecasts()))
        #expect(detail.recasts?.first?.accepted == true)
        #expect(detail.acceptedRecastCount == 1)
        #expect(detail.participants.first?.recastsAccepted == 1)
        _ = await h.hub.inspectSessions(now: h.clock.now())
        _ = await h.hub.operatorCounts()

        // Read-only: no seq, broadcast, encoding or journal entry came of it.
        #expect(await alice.session.currentSeq == seq)
        #expect(alice.link.delivered.count == delivered)
        #expect(h.encoder.envelopes.count == encoded)
        #expect(h.journal.entries(of: alice.session.id).count == journaled)
        #expect(await h.hub.inspectSession(id: "no-such-session", now: h.clock.now()) == nil)
    }

    @Test func sessionsAreListedOldestFirstAndCounted() async throws {
        let h = Harness()
        let first = try await h.solo(Users.dave)
        h.clock.advance(1_000)
        let group = try await h.group(2)
        await group[1].session.disconnected(userId: Users.bob.id, linkId: group[1].link.linkId)
        let views = await h.hub.inspectSessions(now: h.clock.now())
        #expect(views.map(\.sessionId) == [first.session.id, group[0].session.id])
        let counts = await h.hub.operatorCounts()
        #expect(counts.sessions == 2)
        #expect(counts.sharedSessions == 1)
        #expect(counts.seats == 3)
        #expect(counts.connectedSeats == 2)
    }

    // MARK: Ending

    @Test func anOperatorEndIsBroadcastSavedAndForgotten() async throws {
        let h = Harness(premium: [Users.alice.id])
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        try await alice.say("Hola")
        try await bob.say("Adiós")
        h.clock.advance(5_000)

        let summary = try await h.hub.endSession(id: alice.session.id)
        #expect(summary.cause == .operatorEnded)
        #expect(summary.ref == nil)
        #expect(summary.durationSeconds == 5)
        #expect(summary.participants.map(\.userId) == [Users.alice.id, Users.bob.id])
        #expect(summary.history == [Users.alice.id: .success, Users.bob.id: .error(.featureLocked)])
        for member in members {
            #expect(member.link.endSummary == summary, "\(member.id) gets ended{operatorEnded}")
            #expect(member.link.detaches == [.ended])
        }
        // Saved like any end: the premium player's history holds the whole transcript.
        let saved = try #require(h.history.sessions(of: Users.alice.id).first)
        #expect(saved.cause == .operatorEnded)
        #expect(saved.lines.map(\.textNative) == ["Hola", "Adiós"])
        #expect(h.journal.entries(of: alice.session.id).isEmpty)
        // The hub forgot it: seats are free, the code is gone, a second end is a 404.
        #expect(await h.hub.liveSessionCount == 0)
        #expect(await h.hub.session(of: Users.bob.id) == nil)
        await #expect(throws: OperatorError.unknownSession(alice.session.id)) {
            _ = try await h.hub.endSession(id: alice.session.id)
        }
        _ = try await h.solo(Users.bob)
    }

    @Test func endingAnUnknownSessionIsRefused() async throws {
        let h = Harness()
        _ = try await h.solo()
        let error = await #expect(throws: OperatorError.self) { _ = try await h.hub.endSession(id: "nope") }
        #expect(error == .unknownSession("nope"))
        #expect(error?.code == "not_found")
        #expect(await h.hub.liveSessionCount == 1)
    }

    @Test func aSessionAlreadyEndingCannotBeEndedOrChangedByAnOperator() async throws {
        let journal = GatedJournal()
        let h = Harness(journalOverride: journal)
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        journal.hold(seq: await alice.session.currentSeq + 1)
        let line = Task { try await bob.say("la última") }
        await journal.waitUntilHeld()
        let ending = Task { try await alice.session.end(by: Users.alice.id) }
        // The host's end waits for the held line; meanwhile the session is ending.
        var phase = SessionInspection.Phase.live
        for _ in 0..<2000 where phase == .live {
            try await Task.sleep(for: .milliseconds(5))
            phase = try #require(await h.hub.inspectSession(id: alice.session.id, now: h.clock.now())).phase
        }
        #expect(phase == .ending)
        await #expect(throws: OperatorError.sessionEnding(alice.session.id)) {
            _ = try await h.hub.endSession(id: alice.session.id)
        }
        await #expect(throws: OperatorError.sessionEnding(alice.session.id)) {
            _ = try await h.hub.removeParticipant(userId: Users.bob.id, fromSession: alice.session.id)
        }
        journal.release()
        try await line.value
        try await ending.value
        #expect(alice.link.endSummary?.cause == .hostEnded)
    }

    // MARK: Removing

    @Test func removingAParticipantTellsEveryoneAndFreesTheirSeat() async throws {
        let h = Harness()
        let members = try await h.group(3)
        let (alice, bob, carol) = (members[0], members[1], members[2])
        let removal = try await h.hub.removeParticipant(userId: Users.bob.id, fromSession: alice.session.id)
        #expect(removal == OperatorRemoval(userId: Users.bob.id, hostId: Users.alice.id, sessionEnded: false))
        #expect(bob.link.detaches == [.removed])
        for member in [alice, carol] {
            #expect(member.link.presenceChanges.last == PresenceChange(userId: Users.bob.id, kind: .removed))
        }
        #expect(!bob.link.presenceChanges.contains { $0.kind == .removed }, "the removed player hears of it as left{removed}")
        let view = try #require(await h.hub.inspectSession(id: alice.session.id, now: h.clock.now()))
        #expect(view.present.map(\.userId) == [Users.alice.id, Users.carol.id])
        #expect(view.participants.last?.userId == Users.bob.id)
        #expect(view.participants.last?.status == .departed)
        // Bob's seat is free: he may start something else; his old session refuses him.
        #expect(await h.hub.session(of: Users.bob.id) == nil)
        #expect(await errorCode { try await bob.say("sigo aquí") } == .notInSession)
        _ = try await h.solo(Users.bob)
        // Removing him again, or someone who never joined, is a 404.
        await #expect(throws: OperatorError.unknownParticipant(sessionId: alice.session.id, userId: Users.bob.id)) {
            _ = try await h.hub.removeParticipant(userId: Users.bob.id, fromSession: alice.session.id)
        }
        await #expect(throws: OperatorError.unknownParticipant(sessionId: alice.session.id, userId: Users.erin.id)) {
            _ = try await h.hub.removeParticipant(userId: Users.erin.id, fromSession: alice.session.id)
        }
        await #expect(throws: OperatorError.unknownSession("nope")) {
            _ = try await h.hub.removeParticipant(userId: Users.alice.id, fromSession: "nope")
        }
    }

    @Test func removingTheHostHandsHostingOnAndRemovingTheLastEndsTheSession() async throws {
        let h = Harness(premium: [Users.bob.id])
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        try await bob.say("Hola")
        let first = try await h.hub.removeParticipant(userId: Users.alice.id, fromSession: alice.session.id)
        #expect(first == OperatorRemoval(userId: Users.alice.id, hostId: Users.bob.id, sessionEnded: false))
        #expect(bob.link.events.contains { if case .hostChanged(Users.bob.id) = $0 { true } else { false } })
        #expect(alice.link.detaches == [.removed])

        let last = try await h.hub.removeParticipant(userId: Users.bob.id, fromSession: alice.session.id)
        #expect(last == OperatorRemoval(userId: Users.bob.id, hostId: nil, sessionEnded: true))
        #expect(await h.hub.liveSessionCount == 0)
        // Nobody was left to receive `ended`, but the session was saved as abandoned.
        let saved = try #require(h.history.sessions(of: Users.bob.id).first)
        #expect(saved.cause == .abandoned)
        #expect(saved.lines.map(\.textNative) == ["Hola"])
    }

    @Test func aParticipantInTheGraceWindowCanBeRemoved() async throws {
        let h = Harness()
        let members = try await h.group(2)
        await members[1].session.disconnected(userId: Users.bob.id, linkId: members[1].link.linkId)
        _ = try await h.hub.removeParticipant(userId: Users.bob.id, fromSession: members[0].session.id)
        #expect(members[0].link.presenceChanges.suffix(2).map(\.kind) == [.disconnected, .removed])
        #expect(await h.hub.session(of: Users.bob.id) == nil)
        #expect(members[1].link.detaches.isEmpty, "no link to detach while disconnected")
    }
}
