import HubDomain
import Synchronization
import Testing

@Suite("Ending sessions")
struct EndTests {
    static func figures(_ summary: SessionEndSummary, _ user: HubUser) throws -> ParticipantStats {
        try #require(summary.participants.first { $0.userId == user.id })
    }

    @Test func hostEndsWithFinalFiguresForEveryone() async throws {
        let h = Harness()
        let alice = try await h.host()
        let code = try #require(alice.session.joinCode)
        h.clock.advance(1_000)
        let bob = try await h.join(Users.bob, code: code)
        try await alice.say("Uno dos")
        try await bob.say("cinco")
        try await alice.say("tres")
        try await alice.say("cuatro")
        h.clock.advance(64_400)
        try await alice.session.end(by: Users.alice.id)

        let summary = try #require(alice.link.endSummary)
        #expect(bob.link.endSummary == summary)
        #expect(await alice.session.summary == summary)
        #expect(summary.cause == .hostEnded)
        #expect(summary.endedAt == TestClock.start + 65_400)
        #expect(summary.durationSeconds == 65)
        #expect(!summary.goalReached)
        #expect(summary.participants.map(\.userId) == [Users.alice.id, Users.bob.id])
        #expect(summary.history == [Users.alice.id: .error(.featureLocked), Users.bob.id: .error(.featureLocked)])

        // Alice: 3 lines (30) + 5 new words (10) + accuracy (30) = 70; streak of 1 day: +3.
        let a = try Self.figures(summary, Users.alice)
        #expect(a.stats == SessionStats(sessionId: alice.session.id, startedAt: TestClock.start, endedAt: summary.endedAt,
                                        mode: .host, scenarioId: Fixtures.scenarioId, linesSpoken: 3, wordsEncountered: 5,
                                        newVocabulary: 5, errorsDetected: 0, errorsCorrected: 0, xpEarned: 73,
                                        xpBreakdown: XPBreakdown(dialogCompletion: 30, vocabularyBonus: 10, accuracyBonus: 30,
                                                                 collaborationBonus: 0, streakBonus: 3)))
        #expect(a.collaboration == CollaborationStats())
        #expect(a.weakSpots.isEmpty)
        // Bob: 1 line (10) + 5 new words (10) = 20; no accuracy bonus under 3 lines; streak +1.
        let b = try Self.figures(summary, Users.bob)
        #expect(b.stats.startedAt == TestClock.start + 1_000)
        #expect(b.stats.mode == .client)
        #expect(b.stats.xpBreakdown == XPBreakdown(dialogCompletion: 10, vocabularyBonus: 10, accuracyBonus: 0,
                                                   collaborationBonus: 0, streakBonus: 1))
        #expect(b.stats.xpEarned == 21)
    }

    @Test func endedIsTheLastBroadcastThenLinksAreDetached() async throws {
        let h = Harness()
        let members = try await h.group(3)
        try await members[1].say("hola")
        try await members[0].session.end(by: Users.alice.id)
        let last = await members[0].session.currentSeq
        for member in members {
            let records = member.link.records
            guard records.count >= 2, case .deliver(let ended) = records[records.count - 2],
                  case .detach(.ended) = records[records.count - 1] else {
                Issue.record("\(member.id): expected ended then detach(.ended), got \(records.suffix(2))")
                continue
            }
            #expect(ended.seq == last)
            #expect(member.link.detaches == [.ended])
        }
    }

    @Test func onlyTheHostMayEnd() async throws {
        let h = Harness()
        let members = try await h.group(2)
        #expect(await errorCode { try await members[1].session.end(by: Users.bob.id) } == .notAllowed)
        #expect(await errorCode { try await members[1].session.end(by: Users.erin.id) } == .notInSession)
        #expect(await !members[0].session.isOver)
    }

    @Test func reachingTheGoalEndsAMultiplayerSessionWithATeamWin() async throws {
        let h = Harness(goalLines: 4)
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        try await alice.say("uno")
        try await bob.say("dos")
        try await alice.say("tres")
        #expect(await !alice.session.isOver)
        try await bob.say("cuatro")
        #expect(await alice.session.isOver)
        let summary = try #require(alice.link.endSummary)
        #expect(summary.cause == .goalReached)
        #expect(summary.goalReached)
        // The 4th line is delivered, then `ended`.
        #expect(alice.link.lines.count == 4)
        guard case .ended? = alice.link.events.last else {
            Issue.record("expected ended last, got \(alice.link.events.suffix(2))")
            return
        }
        // Each: 2 lines (20) + goal (50) + 4 new words (8) + team win (25) = 103; streak +5.
        for user in [Users.alice, Users.bob] {
            let f = try Self.figures(summary, user)
            #expect(f.collaboration.teamWins == 1)
            #expect(f.stats.xpBreakdown == XPBreakdown(dialogCompletion: 70, vocabularyBonus: 8, accuracyBonus: 0,
                                                       collaborationBonus: 25, streakBonus: 5))
            #expect(f.stats.xpEarned == 108)
        }
        #expect(await errorCode { try await alice.say("cinco") } == .sessionEnded)
    }

    @Test func reachingTheGoalAloneIsNoTeamWin() async throws {
        let h = Harness(goalLines: 3)
        let alice = try await h.solo()
        for text in ["uno", "dos", "tres"] { try await alice.say(text) }
        let summary = try #require(alice.link.endSummary)
        #expect(summary.cause == .goalReached)
        let f = try Self.figures(summary, Users.alice)
        #expect(f.collaboration.teamWins == 0)
        // 3 lines (30) + goal (50) + 3 words (6) + accuracy (30) = 116; streak: 5.8 → 5.
        #expect(f.stats.xpBreakdown == XPBreakdown(dialogCompletion: 80, vocabularyBonus: 6, accuracyBonus: 30,
                                                   collaborationBonus: 0, streakBonus: 5))
        #expect(f.stats.mode == .solo)
    }

    @Test func premiumParticipantsGetHistoryAndFreeOnesFeatureLocked() async throws {
        let h = Harness(premium: [Users.alice.id])
        let members = try await h.group(2)
        try await members[0].say("Hola", translated: "Hello")
        try await members[1].say("Buenos días", translated: "Good morning")
        h.clock.advance(10_000)
        try await members[0].session.end(by: Users.alice.id)
        let summary = try #require(members[0].link.endSummary)
        #expect(summary.history[Users.alice.id] == .success)
        #expect(summary.history[Users.bob.id] == .error(.featureLocked))
        #expect(h.history.sessions(of: Users.bob.id).isEmpty)
        let saved = try #require(h.history.sessions(of: Users.alice.id).first)
        #expect(h.history.sessions(of: Users.alice.id).count == 1)
        #expect(saved.sessionId == members[0].session.id)
        #expect(saved.scenarioId == Fixtures.scenarioId)
        #expect(saved.scenarioTitle == "Test Café")
        #expect(saved.targetLanguage == "es")
        #expect(saved.multiplayer)
        #expect(saved.cause == .hostEnded)
        #expect(saved.durationSeconds == 10)
        #expect(saved.lines == (await members[0].session.transcript()))
        #expect(saved.lines.map(\.textTranslated) == ["Hello", "Good morning"])
        #expect(saved.participants.map(\.userId) == [Users.alice.id, Users.bob.id])
        #expect(saved.participants.map(\.figures) == summary.participants)
        #expect(saved.participants.map(\.roleName) == ["Barista", "Customer"])
    }

    @Test func freeUsersHaveNothingStored() async throws {
        let h = Harness()
        let alice = try await h.solo()
        try await alice.say("hola")
        try await alice.session.end(by: Users.alice.id)
        #expect(alice.link.endSummary?.history == [Users.alice.id: .error(.featureLocked)])
        #expect(h.history.sessions(of: Users.alice.id).isEmpty)
    }

    @Test func newVocabularyExcludesWordsTheUserAlreadyKnows() async throws {
        let h = Harness()
        await h.learners.recordWords(["uno", "dos"], userId: Users.alice.id, language: "es")
        await h.learners.recordWords(["cuatro"], userId: Users.bob.id, language: "fr") // another language
        let members = try await h.group(2)
        try await members[0].say("Uno dos tres")
        try await members[1].say("tres cuatro")
        try await members[0].session.end(by: Users.alice.id)
        let summary = try #require(members[0].link.endSummary)
        let a = try Self.figures(summary, Users.alice)
        let b = try Self.figures(summary, Users.bob)
        #expect(a.stats.wordsEncountered == 4)
        #expect(a.stats.newVocabulary == 2)
        #expect(a.stats.xpBreakdown.vocabularyBonus == 4)
        #expect(b.stats.newVocabulary == 4)
        // What was met is recorded for next time.
        #expect(await h.learners.knownWords(userId: Users.alice.id, language: "es") == ["uno", "dos", "tres", "cuatro"])
        #expect(await h.learners.knownWords(userId: Users.bob.id, language: "es") == ["uno", "dos", "tres", "cuatro"])
        #expect(await h.learners.knownWords(userId: Users.bob.id, language: "fr") == ["cuatro"])
    }

    /// A writer that keeps the new words with the history, as the stores do.
    final class WordKeepingHistory: HistoryWriter {
        let words = Mutex<[String: Set<String>]>([:])
        var recordsNewWords: Bool { true }

        func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
            words.withLock { words in
                for participant in session.participants { words[participant.userId, default: []].formUnion(participant.newWords) }
            }
            return session.everyParticipant(.error(.featureLocked))
        }
    }

    @Test func aWriterThatKeepsNewWordsGetsThemWithTheSessionAndNoSecondWrite() async throws {
        let history = WordKeepingHistory()
        let h = Harness(historyOverride: history)
        await h.learners.recordWords(["uno"], userId: Users.alice.id, language: "es")
        let members = try await h.group(2)
        try await members[0].say("Uno dos")
        try await members[0].session.end(by: Users.alice.id)
        #expect(history.words.withLock { $0 } == [Users.alice.id: ["dos"], Users.bob.id: ["uno", "dos"]])
        // Not written a second time through the learner records.
        #expect(await h.learners.knownWords(userId: Users.alice.id, language: "es") == ["uno"])
        #expect(await h.learners.knownWords(userId: Users.bob.id, language: "es").isEmpty)
    }

    @Test func nextSessionCountsOnlyWordsNotMetBefore() async throws {
        let h = Harness(premium: [Users.alice.id])
        let first = try await h.solo()
        try await first.say("uno dos")
        try await first.session.end(by: Users.alice.id)
        let second = try await h.solo()
        try await second.say("Uno, dos, tres.")
        try await second.session.end(by: Users.alice.id)
        let f = try Self.figures(try #require(second.link.endSummary), Users.alice)
        #expect(f.stats.newVocabulary == 1)
        #expect(h.history.sessions(of: Users.alice.id).last?.participants.first?.newWords == ["tres"])
    }

    @Test func streakOfConsecutiveDaysRaisesTheStreakBonus() async throws {
        let h = Harness()
        let dayOne = try await h.solo()
        try await dayOne.say("uno")
        try await dayOne.session.end(by: Users.alice.id)
        h.clock.advance(TestClock.day)
        let dayTwo = try await h.solo()
        for text in ["siete", "ocho", "nueve"] { try await dayTwo.say(text) }
        try await dayTwo.session.end(by: Users.alice.id)
        // 30 + 6 + 30 = 66; two days: 66 × 10% = 6.6 → 6.
        let f = try Self.figures(try #require(dayTwo.link.endSummary), Users.alice)
        #expect(f.stats.xpBreakdown.streakBonus == 6)
        #expect(f.stats.xpEarned == 72)
    }

    @Test func journalHoldsEveryBroadcastInSeqOrderUntilTheEnd() async throws {
        let h = Harness()
        let members = try await h.group(3)
        let (alice, bob, carol) = (members[0], members[1], members[2])
        try await bob.say("Yo querer café")
        h.clock.advance(500)
        try await alice.session.recast(userId: Users.alice.id, lineId: "l1", correctedText: "Quiero un café",
                                       explanation: nil, issueTypes: [.grammar], ref: nil)
        try await bob.session.acceptRecast(userId: Users.bob.id, recastId: "r1", ref: nil)
        h.clock.advance(LiveSession.statsClockSpacing)
        await h.hub.tick()
        await carol.session.disconnected(userId: Users.carol.id, linkId: carol.link.linkId)

        let session = alice.session
        let entries = h.journal.entries(of: session.id)
        let last = await session.currentSeq
        #expect(entries.map(\.seq) == Array(1...last))
        #expect(entries.allSatisfy { $0.sessionId == session.id })
        // The journal holds exactly what was broadcast.
        #expect(entries.map(\.event) == h.encoder.envelopes(of: session.id).map(\.event))
        #expect(Array(entries.dropFirst()).map(\.event) == alice.link.events)
        #expect(entries.map(Self.kind) == ["participants.joined", "participants.joined", "participants.joined", "line",
                                          "recast", "recastAccepted", "stats", "participants.disconnected"])
        #expect(entries[4].timestamp == TestClock.start + 500)
        // The header came first, so the session can be rebuilt.
        let header = try #require(try await h.journal.openSessions().first)
        #expect(header.sessionId == session.id)
        #expect(header.joinCode == session.joinCode)
        #expect(header.startedAt == session.startedAt)

        // Once saved, the session leaves the journal; `ended` is never journaled.
        try await alice.session.end(by: Users.alice.id)
        #expect(h.journal.entries(of: session.id).isEmpty)
        #expect(try await h.journal.openSessions().isEmpty)
        #expect(h.encoder.envelopes(of: session.id).last.map { Self.kind(JournalEntry(sessionId: "", seq: 0, timestamp: 0, event: $0.event)) } == "ended")
    }

    private static func kind(_ entry: JournalEntry) -> String {
        switch entry.event {
        case .participants(let change, _): "participants.\(change.kind.rawValue)"
        case .line: "line"
        case .recast: "recast"
        case .recastAccepted: "recastAccepted"
        case .hostChanged: "hostChanged"
        case .stats: "stats"
        case .ended: "ended"
        }
    }

    @Test func afterTheEndEveryRequestIsRefused() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        try await bob.say("hola")
        try await alice.session.end(by: Users.alice.id)
        let session = alice.session
        let seq = await session.currentSeq
        #expect(await errorCode { try await alice.say("otra") } == .sessionEnded)
        #expect(await errorCode { try await session.recast(userId: Users.alice.id, lineId: "l1", correctedText: "x", explanation: nil, issueTypes: [.grammar], ref: nil) } == .sessionEnded)
        #expect(await errorCode { try await session.acceptRecast(userId: Users.bob.id, recastId: "r1", ref: nil) } == .sessionEnded)
        #expect(await errorCode { try await session.end(by: Users.alice.id) } == .sessionEnded)
        #expect(await errorCode { try await session.leave(userId: Users.bob.id) } == .sessionEnded)
        #expect(await errorCode { _ = try await session.join(Users.carol, link: RecordingLink(), mode: .client, ref: nil) } == .sessionEnded)
        #expect(await errorCode { _ = try await session.resume(userId: Users.bob.id, resumeToken: bob.resumeToken ?? "", lastSeq: 0, link: RecordingLink(), ref: nil) } == .sessionEnded)
        #expect(await errorCode { _ = try await h.hub.resume(user: Users.bob, resumeToken: bob.resumeToken ?? "", lastSeq: 0, link: RecordingLink(), ref: nil) } == .invalidResumeToken)
        await session.end(cause: .operatorEnded) // no-op
        await session.tick(now: h.clock.now() + 3_600_000)
        #expect(await session.currentSeq == seq)
        #expect(await session.summary?.cause == .hostEnded)
        // Both users are free again.
        _ = try await h.solo(Users.alice)
        _ = try await h.solo(Users.bob)
    }

    @Test func participantsWhoLeftEarlyAreInTheSummary() async throws {
        let h = Harness()
        let members = try await h.group(3)
        try await members[2].say("adiós")
        try await members[2].session.leave(userId: Users.carol.id)
        try await members[0].session.end(by: Users.alice.id)
        let summary = try #require(members[0].link.endSummary)
        #expect(summary.participants.map(\.userId) == [Users.alice.id, Users.bob.id, Users.carol.id])
        #expect(try Self.figures(summary, Users.carol).stats.linesSpoken == 1)
        #expect(members[2].link.endSummary == nil) // she had left
    }

    @Test func operatorCanEndASession() async throws {
        let h = Harness()
        let members = try await h.group(2)
        await members[0].session.end(cause: .operatorEnded)
        #expect(members[1].link.endSummary?.cause == .operatorEnded)
        #expect(await h.hub.liveSessionCount == 0)
    }
}

/// A second `end` while one is in progress waits for it (what lets a stopping server end
/// every session before its event loops go).
@Suite("End in progress")
struct EndInProgressTests {
    /// A history writer whose saves wait until released.
    final class HeldHistory: HistoryWriter {
        private let gate = Mutex<(held: Bool, waiting: [CheckedContinuation<Void, Never>], saves: Int)>((true, [], 0))

        func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
            await withCheckedContinuation { continuation in
                let go = gate.withLock { state -> Bool in
                    state.saves += 1
                    if state.held { state.waiting.append(continuation); return false }
                    return true
                }
                if go { continuation.resume() }
            }
            return Dictionary(uniqueKeysWithValues: session.participants.map { ($0.userId, HistoryWriteResult.error(.featureLocked)) })
        }

        var saves: Int { gate.withLock { $0.saves } }

        func release() {
            let waiting = gate.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.held = false
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// Alice hosts a session whose history saves wait for ``HeldHistory/release()``.
    struct HeldEnd {
        let history = HeldHistory()
        let clock = TestClock()
        let link = RecordingLink()
        let session: LiveSession

        init() async throws {
            let ports = HubPorts(clock: clock, encoder: TestEncoder(), history: history)
            let scenario = Fixtures.scenario(goalLines: 100, maxPlayers: 4)
            let hub = Hub(catalog: ScenarioCatalog([scenario]), configuration: HubConfiguration(), ports: ports)
            session = try await hub.host(user: Users.alice, scenarioId: scenario.id, maxPlayers: nil, link: link, ref: nil)
        }

        /// Starts an end and returns once it waits in its history save.
        func endUntilSaving() async throws -> Task<Void, Never> {
            let session = session
            let ending = Task { await session.end(cause: .hostEnded) }
            for _ in 0..<2000 where history.saves == 0 { try await Task.sleep(for: .milliseconds(5)) }
            return ending
        }
    }

    @Test func aSecondEndWaitsForTheOneInProgress() async throws {
        let held = try await HeldEnd()
        let (history, link, session) = (held.history, held.link, held.session)
        let first = try await held.endUntilSaving()
        #expect(history.saves == 1)
        let second = Task { await session.end(cause: .serverShutdown); return link.endSummary != nil }
        try await Task.sleep(for: .milliseconds(50))
        #expect(link.endSummary == nil, "the first end is still saving")
        history.release()
        await first.value
        #expect(await second.value, "the second end returned only once the session had ended")
        #expect(history.saves == 1, "ended once")
    }

    /// A session let go (another node owns it now) while its end is under way ends there, not
    /// here: this node announces nothing and frees no seat.
    @Test func anEndLetGoOfMidwayStopsThere() async throws {
        let held = try await HeldEnd()
        let session = held.session
        let ending = try await held.endUntilSaving()
        await session.relinquish(.moved)
        held.history.release()
        await ending.value
        let after = await session.inspect(now: held.clock.now())
        #expect(after.phase == .moved, "the end went on after the session was let go")
        #expect(after.endStage == nil)
        #expect(held.link.endSummary == nil)
    }

    @Test func anOperatorSeesWhatAnEndWaitsFor() async throws {
        let held = try await HeldEnd()
        let (history, clock, session) = (held.history, held.clock, held.session)
        let live = await session.inspect(now: clock.now())
        #expect(live.phase == .live && live.endStage == nil && live.endStageSince == nil)
        #expect(live.journalWriteSince == nil && live.undelivered == 0)

        let ending = try await held.endUntilSaving()
        let saving = await session.inspect(now: clock.now())
        #expect(saving.phase == .ending)
        #expect(saving.endStage == .savingHistory, "the end waits for its history save")
        #expect(saving.endStageSince != nil)
        history.release()
        await ending.value
        let over = await session.inspect(now: clock.now())
        #expect(over.phase == .ended && over.endStage == nil)
    }
}
