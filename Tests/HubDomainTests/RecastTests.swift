import HubDomain
import Testing

@Suite("Recasts")
struct RecastTests {
    /// Alice, Bob and Carol; Bob has said line l1.
    static func trio() async throws -> (Harness, alice: Member, bob: Member, carol: Member) {
        let h = Harness()
        let members = try await h.group(3)
        try await members[1].say("Yo querer un café", translated: "I want a coffee")
        return (h, members[0], members[1], members[2])
    }

    static func recast(_ author: Member, line: String = "l1", text: String = "Quiero un café",
                       explanation: String? = nil, types: [RecastIssueType] = [.grammar], ref: String? = nil) async throws(HubError) {
        try await author.session.recast(userId: author.id, lineId: line, correctedText: text, explanation: explanation,
                                        issueTypes: types, ref: ref)
    }

    static func accept(_ speaker: Member, _ recastId: String, ref: String? = nil) async throws(HubError) {
        try await speaker.session.acceptRecast(userId: speaker.id, recastId: recastId, ref: ref)
    }

    @Test func recastIsNumberedAndBroadcastToEveryone() async throws {
        let (h, alice, bob, carol) = try await Self.trio()
        h.clock.advance(800)
        try await Self.recast(alice, explanation: "querer → quiero", types: [.vocabulary, .grammar, .grammar], ref: "rc-1")
        let expected = Recast(id: "r1", lineId: "l1", authorId: Users.alice.id, speakerId: Users.bob.id,
                              correctedText: "Quiero un café", explanation: "querer → quiero",
                              issueTypes: [.grammar, .vocabulary], timestamp: TestClock.start + 800, accepted: false)
        for member in [alice, bob, carol] {
            #expect(member.link.events.last == .recast(expected, ref: "rc-1"), "\(member.id)")
        }
        #expect(await alice.session.allRecasts() == [expected])
    }

    @Test func emptyExplanationIsStoredAsNone() async throws {
        let (_, alice, _, _) = try await Self.trio()
        try await Self.recast(alice, explanation: "")
        #expect(await alice.session.allRecasts().first?.explanation == nil)
    }

    @Test func recastOfOwnLineIsNotAllowed() async throws {
        let (_, _, bob, _) = try await Self.trio()
        #expect(await errorCode { try await Self.recast(bob) } == .notAllowed)
        #expect(await bob.session.allRecasts().isEmpty)
    }

    @Test func recastOfUnknownLineIsRefused() async throws {
        let (_, alice, _, _) = try await Self.trio()
        #expect(await errorCode { try await Self.recast(alice, line: "l2") } == .unknownLine)
        #expect(await errorCode { try await Self.recast(alice, line: "") } == .unknownLine)
    }

    @Test func invalidRecastsAreRefused() async throws {
        var configuration = HubConfiguration()
        configuration.maxTextLength = 20
        configuration.maxExplanationLength = 5
        let h = Harness(configuration: configuration)
        let members = try await h.group(2)
        try await members[1].say("Yo querer")
        let alice = members[0]
        #expect(await errorCode { try await Self.recast(alice, text: "") } == .emptyText)
        #expect(await errorCode { try await Self.recast(alice, text: "   ") } == .emptyText)
        #expect(await errorCode { try await Self.recast(alice, text: String(repeating: "a", count: 21)) } == .textTooLong)
        #expect(await errorCode { try await Self.recast(alice, explanation: "123456") } == .textTooLong)
        #expect(await errorCode { try await Self.recast(alice, types: []) } == .missingField)
        #expect(await alice.session.allRecasts().isEmpty)
        try await Self.recast(alice, text: "  Yo quiero  ", explanation: "12345")
        #expect(await alice.session.allRecasts().map(\.correctedText) == ["Yo quiero"])
    }

    @Test func recastsBeyondTheSessionLimitAreRefused() async throws {
        var configuration = HubConfiguration()
        configuration.maxRecastsPerSession = 1
        let h = Harness(configuration: configuration)
        let members = try await h.group(2)
        try await members[1].say("Yo querer")
        try await Self.recast(members[0])
        #expect(await errorCode { try await Self.recast(members[0]) } == .sessionLimit)
    }

    @Test func nonMemberCannotRecast() async throws {
        let (_, alice, _, _) = try await Self.trio()
        let code = await errorCode {
            try await alice.session.recast(userId: Users.erin.id, lineId: "l1", correctedText: "x", explanation: nil, issueTypes: [.grammar], ref: nil)
        }
        #expect(code == .notInSession)
    }

    @Test func speakerAcceptsAndEveryoneIsTold() async throws {
        let (_, alice, bob, carol) = try await Self.trio()
        try await Self.recast(alice)
        try await Self.accept(bob, "r1", ref: "acc-1")
        for member in [alice, bob, carol] {
            #expect(member.link.events.last == .recastAccepted(recastId: "r1", lineId: "l1", userId: Users.bob.id, ref: "acc-1"))
        }
        #expect(await alice.session.allRecasts().map(\.accepted) == [true])
    }

    @Test func onlyTheSpeakerMayAccept() async throws {
        let (_, alice, _, carol) = try await Self.trio()
        try await Self.recast(alice)
        #expect(await errorCode { try await Self.accept(alice, "r1") } == .notAllowed)
        #expect(await errorCode { try await Self.accept(carol, "r1") } == .notAllowed)
        #expect(await alice.session.allRecasts().map(\.accepted) == [false])
    }

    @Test func acceptingTwiceIsRefused() async throws {
        let (_, alice, bob, _) = try await Self.trio()
        try await Self.recast(alice)
        try await Self.accept(bob, "r1")
        let seq = await bob.session.currentSeq
        #expect(await errorCode { try await Self.accept(bob, "r1") } == .alreadyAccepted)
        #expect(await bob.session.currentSeq == seq)
    }

    @Test func acceptingAnUnknownRecastIsRefused() async throws {
        let (_, _, bob, _) = try await Self.trio()
        #expect(await errorCode { try await Self.accept(bob, "r9") } == .unknownRecast)
    }

    @Test func weakSpotsCountRecastsReceivedByIssueType() async throws {
        let (h, alice, _, carol) = try await Self.trio()
        try await Self.recast(alice, types: [.grammar])
        try await Self.recast(carol, types: [.grammar, .vocabulary])
        try await Self.recast(alice, types: [.sentenceStructure, .grammar])
        alice.link.clear()
        h.clock.advance(LiveSession.statsClockSpacing)
        await h.hub.tick()
        guard case .stats(let figures)? = alice.link.events.last else {
            Issue.record("expected stats, got \(alice.link.events)")
            return
        }
        let bobs = try #require(figures.first { $0.userId == Users.bob.id })
        #expect(bobs.weakSpots == ["grammar": 3, "vocabulary": 1, "sentence_structure": 1])
        #expect(bobs.stats.errorsDetected == 3)
        #expect(figures.first { $0.userId == Users.alice.id }?.weakSpots == [:])
    }

    @Test func finalStatsCountRepairsAndHelp() async throws {
        let (_, alice, bob, carol) = try await Self.trio()
        try await Self.recast(alice)                        // r1, accepted
        try await Self.recast(carol, types: [.naturalness]) // r2, accepted
        try await Self.recast(carol, types: [.vocabulary])  // r3, not accepted
        try await Self.accept(bob, "r1")
        try await Self.accept(bob, "r2")
        try await alice.session.end(by: Users.alice.id)
        let summary = try #require(await alice.session.summary)
        let byUser = Dictionary(uniqueKeysWithValues: summary.participants.map { ($0.userId, $0) })
        let b = try #require(byUser[Users.bob.id])
        #expect(b.stats.errorsDetected == 3)
        #expect(b.stats.errorsCorrected == 2)
        #expect(b.collaboration == CollaborationStats(successfulRepairs: 2, helpGiven: 0, teamWins: 0))
        #expect(b.weakSpots == ["grammar": 1, "naturalness": 1, "vocabulary": 1])
        #expect(b.stats.xpBreakdown.collaborationBonus == 0)
        let a = try #require(byUser[Users.alice.id])
        #expect(a.collaboration == CollaborationStats(successfulRepairs: 0, helpGiven: 1, teamWins: 0))
        #expect(a.stats.xpBreakdown.collaborationBonus == 10)
        let c = try #require(byUser[Users.carol.id])
        #expect(c.collaboration == CollaborationStats(successfulRepairs: 0, helpGiven: 1, teamWins: 0))
        #expect(c.stats.xpBreakdown.collaborationBonus == 10)
    }

    @Test func unacceptedRecastsCostAccuracy() async throws {
        let h = Harness()
        let members = try await h.group(2)
        let (alice, bob) = (members[0], members[1])
        for text in ["uno", "dos", "tres"] { try await bob.say(text) }
        try await Self.recast(alice, line: "l1")
        try await Self.recast(alice, line: "l2")
        try await Self.accept(bob, "r2")
        try await alice.session.end(by: Users.alice.id)
        let summary = try #require(await alice.session.summary)
        let b = try #require(summary.participants.first { $0.userId == Users.bob.id })
        #expect(b.stats.xpBreakdown.accuracyBonus == 20) // one recast received and not accepted
        #expect(b.stats.errorsDetected == 2)
        #expect(b.stats.errorsCorrected == 1)
    }
}
