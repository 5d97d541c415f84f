import HubDomain
import Testing

@Suite("Solo sessions")
struct SoloSessionTests {
    @Test func startSoloRepliesJoinedWithTheInitialState() async throws {
        let h = Harness()
        let alice = try await h.solo(ref: "req-1")
        let joined = try #require(alice.link.joined)
        let snapshot = joined.snapshot
        #expect(joined.ref == "req-1")
        #expect(snapshot.sessionId == alice.session.id)
        #expect(snapshot.scenario == h.scenario)
        #expect(snapshot.joinCode == nil)
        #expect(snapshot.hostId == Users.alice.id)
        #expect(snapshot.maxPlayers == 1)
        #expect(snapshot.startedAt == TestClock.start)
        #expect(snapshot.lines.isEmpty)
        #expect(snapshot.recasts.isEmpty)
        #expect(snapshot.seq == 1)
        let me = ParticipantInfo(userId: Users.alice.id, displayName: "Alice", roleName: "Barista", mode: .solo, isHost: true, connected: true)
        #expect(snapshot.participants == [me])
        #expect(snapshot.you == me)
        #expect(alice.link.replies.count == 1)
        #expect(alice.link.delivered.isEmpty) // its own `joined` broadcast is in the snapshot
    }

    @Test func resumeTokenIs128BitsOfHex() async throws {
        let h = Harness()
        let token = try #require(try await h.solo().resumeToken)
        #expect(token.count == 32)
        #expect(token.allSatisfy { "0123456789abcdef".contains($0) })
        let other = try #require(try await h.solo(Users.bob).resumeToken)
        #expect(other != token)
    }

    @Test func theHubKnowsTheSessionAndTheSeat() async throws {
        let h = Harness()
        let alice = try await h.solo()
        #expect(!alice.session.isShared)
        #expect(alice.session.joinCode == nil)
        #expect(alice.session.id.count == 32)
        #expect(await h.hub.liveSessionCount == 1)
        #expect(await h.hub.session(id: alice.session.id) === alice.session)
        #expect(await h.hub.session(of: Users.alice.id) === alice.session)
        #expect(await h.hub.session(of: Users.bob.id) == nil)
    }

    @Test func lineIsNumberedStampedAndBroadcastWithItsRef() async throws {
        let h = Harness()
        let alice = try await h.solo()
        h.clock.advance(500)
        try await alice.say("  Hola, buenos días.  ", translated: "Hello, good morning.", ref: "req-7")
        let envelope = try #require(alice.link.envelopes.last)
        #expect(envelope.seq == 2)
        #expect(envelope.sessionId == alice.session.id)
        let expected = DialogLine(id: "l1", speakerId: Users.alice.id, roleName: "Barista", textNative: "Hola, buenos días.",
                                  textTranslated: "Hello, good morning.", timestamp: TestClock.start + 500)
        #expect(envelope.event == .line(expected, ref: "req-7"))
        #expect(await alice.session.transcript() == [expected])
    }

    @Test func linesAreNumberedL1L2L3() async throws {
        let h = Harness()
        let alice = try await h.solo()
        for text in ["uno", "dos", "tres"] { try await alice.say(text) }
        #expect(alice.link.lines.map(\.id) == ["l1", "l2", "l3"])
        #expect(alice.link.seqs == [2, 3, 4])
        #expect(await alice.session.currentSeq == 4)
    }

    @Test func emptyOrBlankTextIsRefused() async throws {
        let h = Harness()
        let alice = try await h.solo()
        #expect(await errorCode { try await alice.say("") } == .emptyText)
        #expect(await errorCode { try await alice.say(" \n\t ") } == .emptyText)
        #expect(alice.link.delivered.isEmpty)
        #expect(await alice.session.currentSeq == 1)
    }

    @Test func emptyTranslationIsAllowed() async throws {
        let h = Harness()
        let alice = try await h.solo()
        try await alice.say("Hola", translated: "   ")
        #expect(alice.link.lines.map(\.textTranslated) == [""])
    }

    @Test func textLongerThanTheLimitIsRefused() async throws {
        var configuration = HubConfiguration()
        configuration.maxTextLength = 10
        let h = Harness(configuration: configuration)
        let alice = try await h.solo()
        try await alice.say("ñññññññññn\u{301}") // 10 characters: 9 × ñ, then n + combining accent
        #expect(await errorCode { try await alice.say("12345678901") } == .textTooLong)
        #expect(await errorCode { try await alice.say(String(repeating: "é", count: 11)) } == .textTooLong)
        #expect(await errorCode { try await alice.say("ok", translated: "12345678901") } == .textTooLong)
        #expect(alice.link.lines.count == 1)
    }

    @Test func linesBeyondTheSessionLimitAreRefused() async throws {
        var configuration = HubConfiguration()
        configuration.maxLinesPerSession = 2
        let h = Harness(configuration: configuration)
        let alice = try await h.solo()
        try await alice.say("uno")
        try await alice.say("dos")
        #expect(await errorCode { try await alice.say("tres") } == .sessionLimit)
        #expect(await alice.session.transcript().count == 2)
    }

    @Test func nonMemberCannotSpeak() async throws {
        let h = Harness()
        let alice = try await h.solo()
        #expect(await errorCode { try await alice.session.say(userId: Users.bob.id, textNative: "hola", textTranslated: "", ref: nil) } == .notInSession)
    }

    @Test func unknownScenarioIsRefusedAndHoldsNoSeat() async throws {
        let h = Harness()
        let code = await errorCode { _ = try await h.hub.startSolo(user: Users.alice, scenarioId: "nope", link: RecordingLink(), ref: nil) }
        #expect(code == .unknownScenario)
        #expect(await h.hub.liveSessionCount == 0)
        _ = try await h.solo() // Alice is free to start another
    }

    @Test func oneLiveSessionPerUser() async throws {
        let h = Harness()
        _ = try await h.solo()
        #expect(await errorCode { _ = try await h.solo() } == .alreadyInSession)
        #expect(await errorCode { _ = try await h.host() } == .alreadyInSession)
        #expect(await h.hub.liveSessionCount == 1)
    }

    @Test func hubRefusesSessionsBeyondItsLimit() async throws {
        var configuration = HubConfiguration()
        configuration.maxLiveSessions = 2
        let h = Harness(configuration: configuration)
        _ = try await h.solo(Users.alice)
        _ = try await h.solo(Users.bob)
        #expect(await errorCode { _ = try await h.solo(Users.carol) } == .hubFull)
        #expect(await h.hub.session(of: Users.carol.id) == nil)
    }

    @Test("Creations in flight count against the limit: concurrent starts cannot pass it while they wait to be listed")
    func concurrentCreationsStayWithinTheLimit() async throws {
        var configuration = HubConfiguration()
        configuration.maxLiveSessions = 2
        let directory = HeldDirectory()
        let h = Harness(configuration: configuration, directory: directory)
        let users = [Users.alice, Users.bob, Users.carol]
        func waitFor(milliseconds: Int = 5_000, _ condition: () -> Bool) async throws {
            for _ in 0..<milliseconds where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        }
        let carol = try await withThrowingTaskGroup(of: (String, HubError.Code?).self) { group in
            for user in users.prefix(2) {
                group.addTask { (user.id, await errorCode { _ = try await h.solo(user) }) }
            }
            // Both wait in the directory, past the hub's check; a third start is refused at once
            // (were it let through, it would wait in the directory too).
            try await waitFor { directory.waiting == 2 }
            #expect(directory.waiting == 2)
            group.addTask { (Users.carol.id, await errorCode { _ = try await h.solo(Users.carol) }) }
            try await waitFor(milliseconds: 100) { directory.waiting == 3 }
            #expect(directory.waiting == 2)
            directory.open()
            var codes: [String: HubError.Code?] = [:]
            for try await (user, code) in group { codes[user] = code }
            #expect(codes[Users.alice.id] == .some(nil))
            #expect(codes[Users.bob.id] == .some(nil))
            return codes[Users.carol.id] ?? nil
        }
        #expect(carol == .hubFull)
        #expect(await h.hub.liveSessionCount <= 2)
        #expect(await h.hub.session(of: Users.carol.id) == nil)
    }

    @Test func tickBroadcastsChangedStatsOnce() async throws {
        let h = Harness()
        let alice = try await h.solo()
        try await alice.say("Uno dos tres")
        alice.link.clear()
        // Within LiveSession.statsClockSpacing of the session's start the clock sends nothing yet.
        h.clock.advance(LiveSession.statsClockSpacing - 1)
        await h.hub.tick()
        #expect(alice.link.events.isEmpty)
        h.clock.advance(1)
        await h.hub.tick()
        guard case .stats(let figures)? = alice.link.events.first else {
            Issue.record("expected a stats broadcast, got \(alice.link.events)")
            return
        }
        #expect(alice.link.seqs == [3])
        #expect(figures.map(\.userId) == [Users.alice.id])
        let stats = figures[0].stats
        #expect(stats.linesSpoken == 1)
        #expect(stats.wordsEncountered == 3)
        #expect(stats.newVocabulary == 3)
        #expect(stats.endedAt == nil)
        #expect(stats.mode == .solo)
        #expect(stats.scenarioId == Fixtures.scenarioId)
        #expect(stats.xpBreakdown.dialogCompletion == 10)
        #expect(stats.xpBreakdown.vocabularyBonus == 6)
        // Nothing changed since: a second tick is silent.
        h.clock.advance(1_000)
        await h.hub.tick()
        #expect(alice.link.seqs == [3])
    }

    @Test func eachBroadcastIsEncodedExactlyOnce() async throws {
        let h = Harness()
        let alice = try await h.solo()
        try await alice.say("uno")
        try await alice.say("dos")
        h.clock.advance(LiveSession.statsClockSpacing)
        await h.hub.tick()
        let seqs = h.encoder.envelopes(of: alice.session.id).map(\.seq)
        #expect(seqs == [1, 2, 3, 4])
        #expect(await alice.session.currentSeq == 4)
    }

    @Test func soloPlayerLeavingEndsTheSessionAsAbandoned() async throws {
        let h = Harness()
        let alice = try await h.solo()
        try await alice.session.leave(userId: Users.alice.id)
        #expect(await alice.session.isOver)
        #expect(await alice.session.summary?.cause == .abandoned)
        #expect(alice.link.detaches == [.left])
        #expect(await h.hub.liveSessionCount == 0)
        #expect(await h.hub.session(of: Users.alice.id) == nil)
    }
}
