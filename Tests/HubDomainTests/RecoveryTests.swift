import HubDomain
import Testing

/// Sessions a crash left open are rebuilt from the journal: same transcript, counters and seq,
/// players resume with the tokens they held, and the session ends and saves as usual.
@Suite("Recovery from the journal")
struct RecoveryTests {
    @Test func aRebuiltSessionResumesWhereItStoodAndEndsWithTheSameFigures() async throws {
        let h = Harness(premium: [Users.alice.id, Users.bob.id], resumeTokens: SigningResumeTokens())
        let members = try await h.group(3)
        let (alice, bob, carol) = (members[0], members[1], members[2])
        try await bob.say("Yo querer un café grande")
        try await alice.session.recast(userId: Users.alice.id, lineId: "l1", correctedText: "Quiero un café grande",
                                       explanation: "querer → quiero", issueTypes: [.grammar], ref: nil)
        try await bob.session.acceptRecast(userId: Users.bob.id, recastId: "r1", ref: nil)
        try await alice.say("Claro, ¿algo más?")
        let bobSeq = bob.link.lastSeq
        try await carol.say("Para mí un té")
        let before = alice.session
        let seqAtCrash = await before.currentSeq
        let transcript = await before.transcript()

        // The process dies: a new hub on the same journal and stores.
        let hub = h.restarted()
        let report = try await hub.recover(from: h.journal)
        #expect(report == RecoveryReport(resumable: 1))
        let rebuilt = try #require(await hub.session(id: before.id))
        #expect(await rebuilt.currentSeq == seqAtCrash)
        #expect(await rebuilt.transcript() == transcript)
        #expect(await rebuilt.allRecasts().map(\.accepted) == [true])
        #expect(rebuilt.joinCode == before.joinCode)
        #expect(rebuilt.startedAt == before.startedAt)
        #expect(await rebuilt.participants().map(\.connected) == [false, false, false])
        #expect(await hub.session(of: Users.carol.id) === rebuilt)

        // Bob resumes with the token from before the crash and gets exactly what he missed.
        let link = RecordingLink()
        _ = try await hub.resume(user: Users.bob, resumeToken: try #require(bob.resumeToken), lastSeq: bobSeq,
                                 link: link, ref: "r")
        let resumed = try #require(link.resumed)
        #expect(resumed.snapshot == nil)
        #expect(Array(link.seqs.prefix(resumed.replayed)) == Array((bobSeq + 1)...seqAtCrash))
        #expect(link.lines.map(\.textNative) == ["Para mí un té"])

        // A wrong token is still refused.
        #expect(await errorCode {
            _ = try await hub.resume(user: Users.alice, resumeToken: "not-a-token", lastSeq: 0, link: RecordingLink(), ref: nil)
        } == .invalidResumeToken)

        // Alice comes back too and ends; the figures count what happened before the crash.
        let aliceLink = RecordingLink()
        _ = try await hub.resume(user: Users.alice, resumeToken: try #require(alice.resumeToken),
                                 lastSeq: seqAtCrash, link: aliceLink, ref: nil)
        try await rebuilt.end(by: Users.alice.id)
        let summary = try #require(aliceLink.endSummary)
        let bobFigures = try #require(summary.participants.first { $0.userId == Users.bob.id })
        #expect(bobFigures.stats.linesSpoken == 1)
        #expect(bobFigures.stats.errorsDetected == 1)
        #expect(bobFigures.stats.errorsCorrected == 1)
        #expect(bobFigures.collaboration.successfulRepairs == 1)
        let aliceFigures = try #require(summary.participants.first { $0.userId == Users.alice.id })
        #expect(aliceFigures.collaboration.helpGiven == 1)
        #expect(summary.participants.count == 3)
        #expect(summary.history[Users.bob.id] == .success)
        let saved = try #require(h.history.sessions(of: Users.bob.id).first { $0.sessionId == before.id })
        #expect(saved.lines.map(\.id) == ["l1", "l2", "l3"])
        #expect(try await h.journal.openSessions().isEmpty)
    }

    @Test func tokensThatCannotBeVerifiedDoNotSurviveARestart() async throws {
        let h = Harness()
        let alice = try await h.solo()
        try await alice.say("Hola")
        let hub = h.restarted()
        #expect(try await hub.recover(from: h.journal).resumable == 1)
        #expect(await errorCode {
            _ = try await hub.resume(user: Users.alice, resumeToken: try #require(alice.resumeToken), lastSeq: 0,
                                     link: RecordingLink(), ref: nil)
        } == .invalidResumeToken)
    }

    @Test func nobodyResumingEndsTheSessionAfterTheGraceWindowAndSavesIt() async throws {
        let h = Harness(premium: [Users.alice.id])
        let alice = try await h.solo()
        try await alice.say("Hola")
        try await alice.say("Un café, por favor")
        let id = alice.session.id
        let hub = h.restarted()
        _ = try await hub.recover(from: h.journal)
        h.clock.advance(hub.configuration.graceWindowMillis - 1)
        await hub.tick()
        #expect(await hub.session(id: id) != nil)
        h.clock.advance(1)
        await hub.tick()
        #expect(await hub.session(id: id) == nil)
        let saved = try #require(h.history.sessions(of: Users.alice.id).first { $0.sessionId == id })
        #expect(saved.cause == .abandoned)
        #expect(saved.lines.count == 2)
        #expect(try await h.journal.openSessions().isEmpty)
    }

    @Test func aSessionThatReachedItsGoalBeforeTheCrashIsEndedAtOnce() async throws {
        let journal = KeepingJournal()
        let h = Harness(goalLines: 2, premium: [Users.alice.id], journalOverride: journal)
        let alice = try await h.solo()
        try await alice.say("Hola")
        try await alice.say("Adiós")
        #expect(alice.link.endSummary?.cause == .goalReached)
        #expect(h.history.sessions(of: Users.alice.id).count == 1)
        // The process died after the goal line was journaled, before the end was saved.
        let report = try await h.restarted().recover(from: journal)
        #expect(report.ended == 1)
        let saves = h.history.sessions(of: Users.alice.id)
        #expect(saves.count == 2)
        let saved = try #require(saves.last)
        #expect(saved.sessionId == alice.session.id)
        #expect(saved.cause == .goalReached)
        #expect(saved.lines.map(\.textNative) == ["Hola", "Adiós"])
    }

    @Test func aSessionWhoseScenarioIsGoneStaysInTheJournal() async throws {
        let h = Harness()
        let alice = try await h.solo()
        try await alice.say("Hola")
        let hub = Hub(catalog: ScenarioCatalog([]), configuration: h.hub.configuration, ports: h.ports)
        let report = try await hub.recover(from: h.journal)
        #expect(report.resumable == 0)
        #expect(report.skipped[alice.session.id]?.contains(h.scenario.id) == true)
        #expect(try await h.journal.openSessions().count == 1)
    }
}

/// A journal that keeps sessions after they end: the state a crash between the last journal
/// write and the history write leaves behind.
final class KeepingJournal: RecoverableJournal {
    private let inner = InMemorySessionJournal()

    func opened(_ header: SessionHeader) async throws { try await inner.opened(header) }
    func append(_ entry: JournalEntry) async throws { try await inner.append(entry) }
    func closed(sessionId: String) async {}
    func openSessions() async throws -> [SessionHeader] { try await inner.openSessions() }
    func entries(sessionId: String) async throws -> [JournalEntry] { try await inner.entries(sessionId: sessionId) }
}
