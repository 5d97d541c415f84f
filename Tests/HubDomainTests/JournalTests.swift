import HubDomain
import Testing

/// The journal comes before the broadcast (DESIGN.md, "Durability"), also when requests overlap.
@Suite("Journal and delivery order")
struct JournalTests {
    /// Alice and Bob in a session journaled by `journal`; Alice's next line will be held.
    static func pair(_ journal: GatedJournal) async throws -> (Harness, Member, Member, heldSeq: Int) {
        let h = Harness(journalOverride: journal)
        let members = try await h.group(2)
        let next = await members[0].session.currentSeq + 1
        journal.hold(seq: next)
        return (h, members[0], members[1], next)
    }

    @Test func broadcastWaitsForItsJournalAppendAndOrderIsKept() async throws {
        let journal = GatedJournal()
        let (_, alice, bob, held) = try await Self.pair(journal)
        let first = Task { try await alice.say("primera") }
        await journal.waitUntilHeld()
        #expect(bob.link.lines.isEmpty) // not durable yet, not delivered
        // seq held + 1: journaled at once, but delivered (and so acknowledged) only after the held line.
        let second = Task { try await bob.say("segunda") }
        try await Task.sleep(for: .milliseconds(50))
        #expect(bob.link.lines.isEmpty) // still behind the held line
        #expect(alice.link.lines.isEmpty)
        journal.release()
        try await first.value
        try await second.value
        for member in [alice, bob] {
            #expect(member.link.lines.map(\.textNative) == ["primera", "segunda"])
            #expect(member.link.seqs.filter { $0 >= held } == [held, held + 1])
        }
    }

    /// What an operator sees of a session whose journal write does not come back.
    @Test func aWriteInFlightIsVisibleToOperators() async throws {
        let journal = GatedJournal()
        let (h, alice, _, _) = try await Self.pair(journal)
        let first = Task { try await alice.say("primera") }
        await journal.waitUntilHeld()
        let held = await alice.session.inspect(now: h.clock.now())
        #expect(held.journalWriteSince != nil, "a write is in flight")
        #expect(held.undelivered == 1, "the held line")
        journal.release()
        try await first.value
        let done = await alice.session.inspect(now: h.clock.now())
        #expect(done.journalWriteSince == nil && done.undelivered == 0)
    }

    @Test
    func journalAppendsArriveInSeqOrder() async throws {
        let journal = GatedJournal()
        let (_, alice, bob, _) = try await Self.pair(journal)
        let first = Task { try await alice.say("primera") }
        await journal.waitUntilHeld()
        let second = Task { try await bob.say("segunda") }
        try await Task.sleep(for: .milliseconds(20))
        journal.release()
        try await first.value
        try await second.value
        let seqs = journal.entries(of: alice.session.id).map(\.seq)
        // SessionJournal: "Entries of one session arrive in seq order."
        #expect(seqs == seqs.sorted(), "journal order: \(seqs)")
    }

    /// Changes queued while a write is in flight go in the next write together: one round trip
    /// for all of them, not one each (what keeps a slow journal's queue short).
    @Test func changesQueuedBehindAWriteShareTheNextOne() async throws {
        let journal = GatedJournal()
        let (_, alice, bob, held) = try await Self.pair(journal)
        let first = Task { try await alice.say("primera") }
        await journal.waitUntilHeld()
        let second = Task { try await bob.say("segunda") }
        let third = Task { try await alice.say("tercera") }
        // Both wait behind the held write (their sends are not answered before it is durable).
        for _ in 0..<2000 where await alice.session.currentSeq < held + 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await alice.session.currentSeq == held + 2)
        journal.release()
        try await first.value
        try await second.value
        try await third.value
        let writes = journal.writes.filter { ($0.first ?? 0) >= held }
        #expect(writes == [[held], [held + 1, held + 2]], "writes: \(writes)")
        for member in [alice, bob] {
            #expect(member.link.seqs.filter { $0 >= held } == [held, held + 1, held + 2], "\(member.id)")
            // Made durable together, delivered together (one write for the transport).
            let calls = member.link.deliveryCalls.filter { ($0.first ?? 0) >= held }
            #expect(calls == [[held], [held + 1, held + 2]], "\(member.id): \(calls)")
        }
    }

    @Test
    func endingWhileALineIsBeingJournaledStillDeliversIt() async throws {
        let journal = GatedJournal()
        let (_, alice, bob, held) = try await Self.pair(journal)
        let line = Task { try await bob.say("última") }
        await journal.waitUntilHeld()
        // `end` waits until every accepted change is delivered, so it runs while the line is held.
        let ending = Task { try await alice.session.end(by: Users.alice.id) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(bob.link.endSummary == nil, "ended must not overtake the held line")
        journal.release()
        try await line.value
        try await ending.value
        for member in [alice, bob] {
            // The line was accepted (it is in the transcript and the saved session), so every
            // connected member must get it, then `ended`, then the detach.
            #expect(member.link.lines.map(\.textNative) == ["última"], "\(member.id)")
            #expect(member.link.seqs.filter { $0 >= held } == [held, held + 1], "\(member.id)")
            #expect(member.link.endSummary != nil, "\(member.id)")
            guard case .detach(.ended)? = member.link.records.last else {
                Issue.record("\(member.id): last record \(String(describing: member.link.records.last))")
                continue
            }
        }
    }

    @Test func journalEntriesAreStampedWithTheServerClock() async throws {
        let h = Harness()
        let alice = try await h.solo()
        h.clock.advance(42)
        try await alice.say("hola")
        let entries = h.journal.entries(of: alice.session.id)
        #expect(entries.map(\.timestamp) == [TestClock.start, TestClock.start + 42])
        #expect(h.journal.entries(of: "another-session").isEmpty)
    }
}
