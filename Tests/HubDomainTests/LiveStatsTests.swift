import HubDomain
import Testing

/// The live `stats` cadence (``LiveSession/statsSpacing``): at most once per spacing, with the
/// first change after it (one journal write, one delivery for both), else on the clock's tick
/// once ``LiveSession/statsClockSpacing`` has passed.
@Suite("Live stats cadence")
struct LiveStatsTests {
    @Test func dueStatsRideWithTheNextLineInOneJournalWriteAndOneDelivery() async throws {
        let journal = GatedJournal()
        let h = Harness(journalOverride: journal)
        let alice = try await h.solo()
        try await alice.say("uno")                       // seq 2, at the start: nothing due
        #expect(alice.link.seqs == [2])
        h.clock.advance(LiveSession.statsSpacing)
        try await alice.say("dos tres")                  // seq 3, and the figures as seq 4
        #expect(alice.link.seqs == [2, 3, 4])
        guard case .stats(let figures)? = alice.link.events.last else {
            Issue.record("expected stats after the line, got \(alice.link.events)")
            return
        }
        #expect(figures.map(\.userId) == [Users.alice.id])
        #expect(figures.first?.stats.linesSpoken == 2, "the figures include the line they follow")
        #expect(figures.first?.stats.wordsEncountered == 3)
        #expect(journal.writes.last == [3, 4], "one journal write: \(journal.writes)")
        #expect(alice.link.deliveryCalls.last == [3, 4], "one delivery: \(alice.link.deliveryCalls)")

        // Within the spacing of those figures neither a line nor the clock sends more.
        h.clock.advance(LiveSession.statsSpacing - 1)
        try await alice.say("cuatro")                    // seq 5
        await h.hub.tick()
        #expect(alice.link.seqs == [2, 3, 4, 5])
        // Past it, the clock still leaves them to a change until the clock's own spacing.
        h.clock.advance(1)
        await h.hub.tick()
        h.clock.advance(LiveSession.statsClockSpacing - LiveSession.statsSpacing - 1)
        await h.hub.tick()
        #expect(alice.link.seqs == [2, 3, 4, 5])
        // Once that has passed too, the clock sends what no change carried.
        h.clock.advance(1)
        await h.hub.tick()
        #expect(alice.link.seqs == [2, 3, 4, 5, 6])
        guard case .stats(let later)? = alice.link.events.last else {
            Issue.record("expected the clock's stats, got \(alice.link.events)")
            return
        }
        #expect(later.first?.stats.linesSpoken == 3)
    }

    @Test func recastsAndAcceptancesCarryDueStatsToo() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        try await bob.say("Yo querer café")
        h.clock.advance(LiveSession.statsSpacing)
        try await alice.session.recast(userId: alice.id, lineId: "l1", correctedText: "Quiero un café",
                                       explanation: nil, issueTypes: [.grammar], ref: nil)
        let afterRecast = bob.link.events.suffix(2)
        guard case .recast? = afterRecast.first, case .stats(let figures)? = afterRecast.last else {
            Issue.record("expected recast then stats, got \(bob.link.events)")
            return
        }
        #expect(figures.first { $0.userId == bob.id }?.stats.errorsDetected == 1)
        h.clock.advance(LiveSession.statsSpacing)
        try await bob.session.acceptRecast(userId: bob.id, recastId: "r1", ref: nil)
        let afterAcceptance = alice.link.events.suffix(2)
        guard case .recastAccepted? = afterAcceptance.first, case .stats(let accepted)? = afterAcceptance.last else {
            Issue.record("expected recastAccepted then stats, got \(alice.link.events)")
            return
        }
        #expect(accepted.first { $0.userId == bob.id }?.stats.errorsCorrected == 1)
        #expect(accepted.first { $0.userId == alice.id }?.collaboration.helpGiven == 1)
    }

    /// A busy session (a line every 100 ms, the clock ticking every second): the figures go out
    /// about once a second, never twice within the spacing, and most ride with a line.
    @Test func aBusySessionSendsItsFiguresOncePerSpacing() async throws {
        let h = Harness(goalLines: 1_000)
        let members = try await h.group(3)
        for step in 1...100 {
            h.clock.advance(100)
            try await members[step % 3].say("frase \(step)")
            if step % 10 == 7 { await h.hub.tick() }
        }
        let stats = h.journal.entries(of: members[0].session.id).filter {
            if case .stats = $0.event { return true }
            return false
        }
        let gaps = zip(stats.dropFirst(), stats).map { $0.timestamp - $1.timestamp }
        #expect((9...11).contains(stats.count), "\(stats.count) stats in 10 s")
        #expect(gaps.allSatisfy { $0 >= LiveSession.statsSpacing }, "gaps \(gaps)")
        // Every stats entry follows a line in the same instant: none needed the clock.
        let entries = h.journal.entries(of: members[0].session.id)
        for (index, entry) in entries.enumerated() where index > 0 {
            guard case .stats = entry.event else { continue }
            guard case .line = entries[index - 1].event else {
                Issue.record("stats at seq \(entry.seq) did not follow a line")
                continue
            }
            #expect(entries[index - 1].timestamp == entry.timestamp)
        }
    }
}
