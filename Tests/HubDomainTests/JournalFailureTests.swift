import HubDomain
import Testing

/// A change whose journal write failed or was fenced is never broadcast (issue 10): the sender
/// gets `journal_unavailable`, the session holds its changes until the journal works again, and a
/// fenced session lets its members go to the node that owns it now.
@Suite("Journal failures")
struct JournalFailureTests {
    static func pair() async throws -> (Harness, SwitchableJournal, Member, Member) {
        let journal = SwitchableJournal()
        let h = Harness(premium: [Users.alice.id, Users.bob.id], journalOverride: journal)
        let members = try await h.group(2)
        return (h, journal, members[0], members[1])
    }

    @Test func aLineTheJournalRefusedIsNotBroadcastAndTheSenderIsTold() async throws {
        let (_, journal, alice, bob) = try await Self.pair()
        journal.set(.down)
        let error = await hubError { try await alice.say("hola", ref: "a1") }
        #expect(error?.code == .journalUnavailable)
        #expect(error?.retryAfterSeconds == 1)
        #expect(alice.link.lines.isEmpty)
        #expect(bob.link.lines.isEmpty)
        #expect(await alice.session.isHoldingChanges)
        #expect(await alice.session.inspect(now: 0).phase == .holding)
    }

    @Test func whileHoldingNewChangesAreRefusedBeforeAnythingChanges() async throws {
        let (h, journal, alice, bob) = try await Self.pair()
        try await alice.say("primera")
        journal.set(.down)
        _ = await errorCode { try await alice.say("held") }
        let seqBefore = await alice.session.currentSeq
        let attempts = journal.attempts
        #expect(await errorCode { try await bob.say("otra") } == .journalUnavailable)
        let line = try #require(alice.link.lines.first)
        #expect(await errorCode {
            try await bob.session.recast(userId: Users.bob.id, lineId: line.id, correctedText: "Primera.",
                                         explanation: nil, issueTypes: [.grammar], ref: nil)
        } == .journalUnavailable)
        #expect(await errorCode { try await alice.session.end(by: Users.alice.id) } == .journalUnavailable)
        #expect(await errorCode { _ = try await h.join(Users.carol, code: try #require(alice.session.joinCode)) } == .journalUnavailable)
        #expect(await alice.session.currentSeq == seqBefore, "a refused request must not take a seq")
        #expect(await alice.session.transcript().map(\.textNative) == ["primera", "held"])
        #expect(journal.attempts == attempts, "refused up front, without a write")
    }

    @Test func theHeldChangeIsDeliveredOnceTheJournalWorksAgain() async throws {
        let (h, journal, alice, bob) = try await Self.pair()
        journal.set(.down)
        _ = await errorCode { try await alice.say("hola", ref: "a1") }
        await alice.session.tick(now: h.clock.now())
        #expect(bob.link.lines.isEmpty, "still down: still held")
        journal.set(.up)
        await alice.session.tick(now: h.clock.now())
        #expect(!(await alice.session.isHoldingChanges))
        for member in [alice, bob] {
            #expect(member.link.lines.map(\.textNative) == ["hola"], "\(member.id)")
            #expect(member.link.seqs == member.link.seqs.sorted())
        }
        try await bob.say("adiós")
        #expect(alice.link.lines.map(\.textNative) == ["hola", "adiós"])
        let stored = try await journal.entries(sessionId: alice.session.id)
        #expect(stored.map(\.seq) == Array(1...stored.count), "journal without gap: \(stored.map(\.seq))")
    }

    @Test func anEndWhileHoldingWaitsForTheJournal() async throws {
        let journal = SwitchableJournal()
        let h = Harness(goalLines: 2, premium: [Users.alice.id], journalOverride: journal)
        let alice = try await h.solo()
        try await alice.say("uno")
        journal.set(.down)
        // The goal line is refused: the session must not end (nor write history) while it is held.
        #expect(await errorCode { try await alice.say("dos") } == .journalUnavailable)
        #expect(!(await alice.session.isOver))
        #expect(h.history.sessions(of: Users.alice.id).isEmpty)
        journal.set(.up)
        await alice.session.tick(now: h.clock.now())
        #expect(await alice.session.isOver)
        #expect(h.history.sessions(of: Users.alice.id).count == 1)
        #expect(alice.link.lines.map(\.textNative) == ["uno", "dos"])
        #expect(alice.link.endSummary?.cause == .goalReached)
    }

    @Test func aFencedSessionLetsEveryoneGoWithoutEndingIt() async throws {
        let (h, journal, alice, bob) = try await Self.pair()
        try await alice.say("hola")
        journal.set(.fenced)
        #expect(await errorCode { try await bob.say("adiós") } == .sessionMoved)
        #expect(alice.link.lines.map(\.textNative) == ["hola"], "the fenced line is never delivered")
        for member in [alice, bob] {
            #expect(member.link.detaches == [.moved], "\(member.id)")
            #expect(member.link.endSummary == nil)
        }
        #expect(await alice.session.hasMoved)
        #expect(await errorCode { try await alice.say("otra") } == .sessionMoved)
        // The hub forgets it (players may start or join elsewhere); nothing is ended or sealed here.
        // (The session tells the hub from a task of its own: waited for, bounded.)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let byId = await h.hub.session(id: alice.session.id), bySeat = await h.hub.session(of: Users.alice.id)
            if byId == nil, bySeat == nil { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await h.hub.session(of: Users.alice.id) == nil)
        #expect(await h.hub.session(id: alice.session.id) == nil)
        #expect(h.history.sessions(of: Users.alice.id).isEmpty)
        #expect(journal.closedSessions.isEmpty, "the journal stays for the new owner")
        journal.set(.up)
        await alice.session.tick(now: h.clock.now())
        #expect(bob.link.lines.map(\.textNative) == ["hola"], "a moved session writes and delivers nothing more")
    }

    @Test func aLineSentAgainWithItsClientIdIsNotRecordedTwice() async throws {
        let (h, journal, alice, bob) = try await Self.pair()
        try await alice.session.say(userId: Users.alice.id, textNative: "hola", textTranslated: "", clientId: "c-1", ref: "a1")
        let error = await hubError {
            try await alice.session.say(userId: Users.alice.id, textNative: "hola", textTranslated: "", clientId: "c-1", ref: "a2")
        }
        #expect(error?.code == .duplicateLine)
        #expect(error?.message.contains("l1") == true)
        // Another speaker may use the same id.
        try await bob.session.say(userId: Users.bob.id, textNative: "buenas", textTranslated: "", clientId: "c-1", ref: nil)
        #expect(await alice.session.transcript().count == 2)
        #expect(bob.link.lines.first?.clientId == "c-1")
        // The ids survive a rebuild from the journal (the node that adopts the session knows them).
        let hub = h.restarted()
        _ = try await hub.recover(from: journal)
        let rebuilt = try #require(await hub.session(id: alice.session.id))
        #expect(await errorCode {
            try await rebuilt.say(userId: Users.alice.id, textNative: "hola", textTranslated: "", clientId: "c-1", ref: nil)
        } == .duplicateLine)
    }
}
