import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("History store (SQLite and PostgreSQL)")
struct HistoryStoreTests {
    /// Ana: premium, learning French (her profile's current target language).
    static func premiumAnaLearningFrench(_ store: any TestStore) async throws {
        var profile = UserProfile.initial(id: "ana", displayName: "Ana", now: 1)
        profile.currentTargetLanguage = "fr"
        _ = try await store.saveProfile(profile)
        try await store.makePremium("ana")
    }

    @Test("A premium participant's session is saved: listed, and read back with transcript, recasts and stats", arguments: StoreBackend.all)
    func premiumSave(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            let session = Fixture.session("s1", endedAt: Day.mon16 + 10 * Day.hour, users: [("ana", 120)])

            let results = await store.save(session)
            #expect(results == ["ana": .success])

            let page = try await store.getSessions(userId: "ana", limit: 50, before: nil)
            #expect(page.total == 1)
            #expect(page.sessions == [HistorySummary(sessionId: "s1", scenarioTitle: "Ordering Coffee",
                                                     timestamp: session.endedAt, targetLanguage: "es",
                                                     durationSeconds: 300, lineCount: 4, xpEarned: 120)])
            let saved = try #require(try await store.getSession(userId: "ana", sessionId: "s1"))
            #expect(saved.sessionId == "s1")
            #expect(saved.timestamp == session.endedAt)
            #expect(saved.targetLanguage == "es")
            #expect(saved.durationSeconds == 300)
            #expect(saved.dialogLines == session.lines)
            #expect(saved.recasts == session.recasts)
            #expect(saved.scenarioId == "ordering-coffee")
            #expect(saved.stats == session.participants[0].figures.stats)
            #expect(saved.collaboration == session.participants[0].figures.collaboration)
        }
    }

    @Test("History and progress use the profile's current target language, else the scenario's", arguments: StoreBackend.all)
    func currentTargetLanguage(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await Self.premiumAnaLearningFrench(store)

            _ = await store.save(Fixture.session("s1", endedAt: Day.mon16, users: [("ana", 50)], targetLanguage: "es"))
            let saved = try #require(try await store.getSession(userId: "ana", sessionId: "s1"))
            #expect(saved.targetLanguage == "fr")
            #expect(try await store.progress(userId: "ana").map(\.language) == ["fr"])
        }
    }

    @Test("A free participant gets featureLocked and nothing goes to history (progress still counts)", arguments: StoreBackend.all)
    func freeIsLocked(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let results = await store.save(Fixture.session("s1", endedAt: Day.mon16, users: [("bob", 40)]))
            #expect(results == ["bob": .error(.featureLocked)])
            #expect(try await store.getSessions(userId: "bob", limit: 10, before: nil) == HistoryPage(total: 0, sessions: []))
            #expect(try await store.getSession(userId: "bob", sessionId: "s1") == nil)
            #expect(try await store.count("history") == 0)
            // The unknown user got a default, free profile named after the participant.
            let profile = try #require(try await store.profile(userId: "bob"))
            #expect(profile.displayName == "Name of bob")
            #expect(profile.isPremium == false)
            #expect(profile.createdAt == Day.mon16)
            #expect(try await store.progress(userId: "bob").first?.totalXP == 40)
        }
    }

    @Test("A multiplayer session with premium and free participants saves only for the premium ones", arguments: StoreBackend.all)
    func mixedMultiplayer(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            try await store.makePremium("cy")
            let session = Fixture.session("m1", endedAt: Day.tue24, multiplayer: true,
                                          users: [("ana", 100), ("bob", 80), ("cy", 60)],
                                          collaboration: CollaborationStats(successfulRepairs: 1, helpGiven: 2, teamWins: 1))
            let results = await store.save(session)
            #expect(results == ["ana": .success, "bob": .error(.featureLocked), "cy": .success])
            #expect(try await store.count("history") == 2)
            #expect(try await store.getSession(userId: "bob", sessionId: "m1") == nil)
            let ana = try #require(try await store.getSession(userId: "ana", sessionId: "m1"))
            let cy = try #require(try await store.getSession(userId: "cy", sessionId: "m1"))
            #expect(ana.stats?.xpEarned == 100)
            #expect(cy.stats?.xpEarned == 60)
            #expect(ana.stats?.mode == .host)
            #expect(cy.stats?.mode == .client)
            #expect(ana.dialogLines == cy.dialogLines)
            #expect(ana.dialogLines.count == 4)
            for user in ["ana", "bob", "cy"] {
                let progress = try #require(try await store.progress(userId: user).first)
                #expect(progress.multiplayerSessions == 1)
                #expect(progress.soloSessions == 0)
                #expect(progress.teamWins == 1)
            }
        }
    }

    @Test("Each participant of one session counts in their own language; an unknown one gets a profile, a stored one is kept as it is",
          arguments: StoreBackend.all)
    func participantsInTheirLanguages(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await Self.premiumAnaLearningFrench(store)
            _ = try await store.saveProfile(UserProfile.initial(id: "cy", displayName: "Cy Stored", now: 2))
            // Out of id order, with a user (bob) the store has never seen.
            let session = Fixture.session("m1", endedAt: Day.tue24, multiplayer: true,
                                          users: [("cy", 60), ("ana", 100), ("bob", 80)], targetLanguage: "es")
            #expect(await store.save(session) == ["ana": .success, "bob": .error(.featureLocked), "cy": .error(.featureLocked)])
            // Saved again (a retry): replaced, counted once.
            #expect(await store.save(session) == ["ana": .success, "bob": .error(.featureLocked), "cy": .error(.featureLocked)])

            #expect(try await store.progress(userId: "ana").map(\.language) == ["fr"])
            #expect(try await store.progress(userId: "bob").map(\.language) == ["es"])
            #expect(try await store.progress(userId: "cy").map(\.language) == ["es"])
            for (user, xp) in [("ana", 100), ("bob", 80), ("cy", 60)] {
                let progress = try #require(try await store.progress(userId: user).first)
                #expect(progress.totalSessions == 1, "\(user)")
                #expect(progress.totalXP == xp, "\(user)")
                #expect(progress.currentStreak == 1, "\(user)")
                #expect(progress.lastActivityDate != nil, "\(user)")
            }
            #expect(try await store.wordReviews(userId: "ana", language: "fr").isEmpty == false)
            #expect(try await store.wordReviews(userId: "ana", language: "es").isEmpty)
            #expect(try await store.wordReviews(userId: "bob", language: "es").isEmpty == false)
            #expect(try await store.getSession(userId: "ana", sessionId: "m1")?.targetLanguage == "fr")
            #expect(try await store.profile(userId: "cy")?.displayName == "Cy Stored")
            #expect(try await store.profile(userId: "bob")?.displayName == "Name of bob")
            #expect(try await store.count("history") == 1)
        }
    }

    @Test("A user can neither read nor delete another user's entry", arguments: StoreBackend.all)
    func isolation(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            try await store.makePremium("eve")
            _ = await store.save(Fixture.session("s1", endedAt: Day.mon16, users: [("ana", 10)]))

            #expect(try await store.getSession(userId: "eve", sessionId: "s1") == nil)
            #expect(try await store.deleteSession(userId: "eve", sessionId: "s1") == false)
            #expect(try await store.clear(userId: "eve") == 0)
            #expect(try await store.getSessions(userId: "eve", limit: 10, before: nil).total == 0)
            #expect(try await store.getSession(userId: "ana", sessionId: "s1") != nil)

            #expect(try await store.deleteSession(userId: "ana", sessionId: "s1") == true)
            #expect(try await store.deleteSession(userId: "ana", sessionId: "s1") == false)
            #expect(try await store.getSessions(userId: "ana", limit: 10, before: nil) == HistoryPage(total: 0, sessions: []))
        }
    }

    @Test("Listing pages back with before (exclusive) and limit, most recent first, total counts everything", arguments: StoreBackend.all)
    func paging(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            try await store.makePremium("bob")
            // Saved out of order on purpose.
            for index in [3, 1, 7, 5, 2, 6, 4] {
                _ = await store.save(Fixture.session("s\(index)", endedAt: Day.mon16 + Int64(index) * Day.hour,
                                                     users: [("ana", index)]))
            }
            _ = await store.save(Fixture.session("other", endedAt: Day.mon16 + 8 * Day.hour, users: [("bob", 1)]))

            let first = try await store.getSessions(userId: "ana", limit: 3, before: nil)
            #expect(first.total == 7)
            #expect(first.sessions.map(\.sessionId) == ["s7", "s6", "s5"])
            let second = try await store.getSessions(userId: "ana", limit: 3, before: first.sessions.last?.timestamp)
            #expect(second.total == 7)
            #expect(second.sessions.map(\.sessionId) == ["s4", "s3", "s2"])
            let third = try await store.getSessions(userId: "ana", limit: 3, before: second.sessions.last?.timestamp)
            #expect(third.sessions.map(\.sessionId) == ["s1"])
            let none = try await store.getSessions(userId: "ana", limit: 3, before: Day.mon16 + Day.hour)
            #expect(none.sessions.isEmpty)
            #expect(none.total == 7)
            // Limits are clamped to 1...100.
            #expect(try await store.getSessions(userId: "ana", limit: 0, before: nil).sessions.count == 1)
            #expect(try await store.getSessions(userId: "ana", limit: 500, before: nil).sessions.count == 7)

            #expect(try await store.clear(userId: "ana") == 7)
            #expect(try await store.getSessions(userId: "ana", limit: 10, before: nil).total == 0)
            #expect(try await store.getSessions(userId: "bob", limit: 10, before: nil).total == 1)
        }
    }

    @Test("Saving the same session again replaces the entry and counts its progress once", arguments: StoreBackend.all)
    func resaveReplaces(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            let session = Fixture.session("s1", endedAt: Day.mon16, users: [("ana", 10), ("bo", 7)])
            _ = await store.save(session)
            _ = await store.save(session)
            let page = try await store.getSessions(userId: "ana", limit: 10, before: nil)
            #expect(page.total == 1)
            #expect(page.sessions.count == 1)
            for (user, xp) in [("ana", 10), ("bo", 7)] {
                let progress = try #require(try await store.progress(userId: user).first)
                #expect(progress.totalXP == xp)
                #expect(progress.totalSessions == 1)
            }
            // A different session still counts.
            _ = await store.save(Fixture.session("s2", endedAt: Day.mon16 + 1000, users: [("ana", 5)]))
            #expect(try await store.progress(userId: "ana").first?.totalXP == 15)
        }
    }
}
