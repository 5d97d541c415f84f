import HubDomain
import Testing

@Suite("In-memory ports")
struct PortsTests {
    static func ended(_ userIds: [String], id: String = "s1") -> EndedSession {
        let participants = userIds.map { userId in
            EndedParticipant(userId: userId, displayName: userId, roleName: "Barista",
                             figures: ParticipantStats(userId: userId,
                                                       stats: SessionStats(sessionId: id, startedAt: 0, endedAt: 1_000, mode: .host,
                                                                           scenarioId: "test-cafe", linesSpoken: 0, wordsEncountered: 0,
                                                                           newVocabulary: 0, errorsDetected: 0, errorsCorrected: 0,
                                                                           xpEarned: 0, xpBreakdown: .zero),
                                                       collaboration: CollaborationStats(), weakSpots: [:]),
                             newWords: [])
        }
        return EndedSession(sessionId: id, scenarioId: "test-cafe", scenarioTitle: "Test Café", targetLanguage: "es",
                            multiplayer: userIds.count > 1, startedAt: 0, endedAt: 61_999, cause: .hostEnded, goalReached: false,
                            lines: [], recasts: [], participants: participants)
    }

    @Test func historyWriterStoresOnlyForPremiumUsers() async {
        let writer = InMemoryHistoryWriter(isPremium: { $0 == "p" })
        let results = await writer.save(Self.ended(["p", "f"]))
        #expect(results == ["p": .success, "f": .error(.featureLocked)])
        #expect(writer.sessions(of: "p").map(\.sessionId) == ["s1"])
        #expect(writer.sessions(of: "f").isEmpty)
        _ = await writer.save(Self.ended(["p"], id: "s2"))
        #expect(writer.sessions(of: "p").map(\.sessionId) == ["s1", "s2"])
    }

    @Test func historyWriterDefaultsToNobodyPremium() async {
        let writer = InMemoryHistoryWriter()
        #expect(await writer.save(Self.ended(["a"])) == ["a": .error(.featureLocked)])
        #expect(writer.sessions(of: "a").isEmpty)
    }

    @Test func durationIsWholeSecondsAndNeverNegative() {
        #expect(Self.ended(["a"]).durationSeconds == 61)
        var backwards = Self.ended(["a"])
        backwards.endedAt = -5_000
        #expect(backwards.durationSeconds == 0)
    }

    @Test func journalKeepsEntriesPerSessionInOrder() async throws {
        let journal = InMemorySessionJournal()
        let hostChanged = SessionEvent.hostChanged(userId: "u")
        for seq in 1...3 { try await journal.append(JournalEntry(sessionId: "a", seq: seq, timestamp: Int64(seq), event: hostChanged)) }
        try await journal.append(JournalEntry(sessionId: "b", seq: 1, timestamp: 9, event: hostChanged))
        #expect(journal.entries(of: "a").map(\.seq) == [1, 2, 3])
        #expect(journal.entries(of: "b").map(\.timestamp) == [9])
        journal.remove("a")
        #expect(journal.entries(of: "a").isEmpty)
        #expect(journal.entries(of: "b").count == 1)
    }

    @Test func learnerWordsArePerUserAndLanguage() async {
        let records = InMemoryLearnerRecords()
        await records.recordWords(["hola", "adiós"], userId: "u", language: "es")
        await records.recordWords(["hola", "gracias"], userId: "u", language: "es")
        await records.recordWords(["bonjour"], userId: "u", language: "fr")
        #expect(await records.knownWords(userId: "u", language: "es") == ["hola", "adiós", "gracias"])
        #expect(await records.knownWords(userId: "u", language: "fr") == ["bonjour"])
        #expect(await records.knownWords(userId: "v", language: "es").isEmpty)
    }

    @Test func streakCountsConsecutiveUTCDays() async {
        let records = InMemoryLearnerRecords()
        let day = TestClock.day
        let monday = 20_000 * day + 3_600_000 // 01:00 UTC
        #expect(await records.streak(userId: "u", endingAt: monday) == 1)
        #expect(await records.streak(userId: "u", endingAt: monday + 3_600_000) == 1) // same day
        #expect(await records.streak(userId: "u", endingAt: monday + day) == 2)
        #expect(await records.streak(userId: "u", endingAt: monday + 3 * day - 3_600_001) == 3) // 23:59:59.999 UTC, two days later
        #expect(await records.streak(userId: "u", endingAt: monday + 4 * day) == 1) // a day skipped
        #expect(await records.streak(userId: "v", endingAt: monday + day) == 1)
    }

    @Test func systemClockIsEpochMilliseconds() {
        let now = SystemHubClock().now()
        #expect(now > 1_700_000_000_000) // after November 2023
        #expect(now < 4_102_444_800_000) // before 2100
    }

    @Test func hubErrorCodesAreStable() {
        // The wire protocol and clients match on these strings.
        let codes = Dictionary(uniqueKeysWithValues: HubError.Code.allCases.map { ($0, $0.rawValue) })
        #expect(codes[.unknownScenario] == "unknown_scenario")
        #expect(codes[.alreadyInSession] == "already_in_session")
        #expect(codes[.unknownJoinCode] == "unknown_join_code")
        #expect(codes[.sessionFull] == "session_full")
        #expect(codes[.sessionEnded] == "session_ended")
        #expect(codes[.notAllowed] == "not_allowed")
        #expect(codes[.alreadyAccepted] == "already_accepted")
        #expect(codes[.invalidResumeToken] == "invalid_resume_token")
        #expect(codes[.invalidLastSeq] == "invalid_last_seq")
        #expect(HubError.Code.allCases.allSatisfy { $0.rawValue.allSatisfy { $0.isLowercase || $0 == "_" } })
        #expect(HubError(.notAllowed, "only the host").description == "not_allowed: only the host")
    }
}
