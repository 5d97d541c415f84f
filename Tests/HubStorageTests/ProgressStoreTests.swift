import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("Progress store (SQLite and PostgreSQL)")
struct ProgressStoreTests {
    @Test("Progress adds up across sessions: XP, level, streaks over UTC days, weekly XP per ISO week, counters", arguments: StoreBackend.all)
    func progressAcrossSessions(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let collaboration = CollaborationStats(successfulRepairs: 2, helpGiven: 1, teamWins: 1)
            func play(_ id: String, at time: Int64, xp: Int, seconds: Int = 300, multiplayer: Bool = false) async throws
                -> UserProgress {
                let results = await store.save(Fixture.session(id, endedAt: time, durationSeconds: seconds,
                                                               multiplayer: multiplayer, users: [("ana", xp)],
                                                               collaboration: multiplayer ? collaboration : CollaborationStats()))
                #expect(results == ["ana": .error(.featureLocked)])
                return try #require(try await store.progress(userId: "ana").first)
            }

            var p = try await play("s1", at: Day.mon16 + 10 * Day.hour, xp: 100, seconds: 330)
            #expect(p.totalXP == 100)
            #expect(p.weeklyXP == 100)
            #expect(p.currentLevel == 2)
            #expect(p.currentStreak == 1)
            #expect(p.longestStreak == 1)
            #expect(p.lastActivityDate == "2026-11-16")
            #expect(p.totalMinutesPlayed == 5)

            p = try await play("s2", at: Day.mon16 + 20 * Day.hour, xp: 50, seconds: 125, multiplayer: true)
            #expect(p.totalXP == 150)
            #expect(p.weeklyXP == 150)
            #expect(p.currentStreak == 1)
            #expect(p.totalSessions == 2)
            #expect(p.soloSessions == 1)
            #expect(p.multiplayerSessions == 1)
            #expect(p.totalMinutesPlayed == 7)
            #expect(p.successfulRepairs == 2)
            #expect(p.helpGiven == 1)
            #expect(p.teamWins == 1)

            // Sunday of the same ISO week, not the day after Monday: same week, streak restarts.
            p = try await play("s3", at: Day.sun22 + 23 * Day.hour, xp: 200)
            #expect(p.weeklyXP == 350)
            #expect(p.currentStreak == 1)
            #expect(p.lastActivityDate == "2026-11-22")

            // Monday: a new ISO week (weekly XP starts over) and the next UTC day (streak 2).
            p = try await play("s4", at: Day.mon23 + 1, xp: 10)
            #expect(p.weeklyXP == 10)
            #expect(p.totalXP == 360)
            #expect(p.currentStreak == 2)

            p = try await play("s5", at: Day.tue24 + 12 * Day.hour, xp: 40)
            #expect(p.weeklyXP == 50)
            #expect(p.totalXP == 400)
            #expect(p.currentLevel == 3)
            #expect(p.currentStreak == 3)
            #expect(p.longestStreak == 3)

            // A gap of two days: the streak restarts, the longest stays.
            p = try await play("s6", at: Day.fri27, xp: 5)
            #expect(p.currentStreak == 1)
            #expect(p.longestStreak == 3)
            #expect(p.weeklyXP == 55)
            #expect(p.totalSessions == 6)
            #expect(p.soloSessions == 5)
            #expect(p.lastActivityDate == "2026-11-27")

            // Read as of a later time: next week's Monday has no weekly XP and no current streak yet.
            let nextMonday = try #require(try await store.progress(userId: "ana", now: Day.mon23 + 7 * Day.ms).first)
            #expect(nextMonday.weeklyXP == 0)
            #expect(nextMonday.currentStreak == 0)
            #expect(nextMonday.totalXP == 405)
            let saturday = try #require(try await store.progress(userId: "ana", now: Day.fri27 + Day.ms + Day.hour).first)
            #expect(saturday.weeklyXP == 55)
            #expect(saturday.currentStreak == 1)
        }
    }

    @Test("A session applied late (an older retried one) adds to the totals without moving week or last day back", arguments: StoreBackend.all)
    func outOfOrderSession(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            _ = await store.save(Fixture.session("late", endedAt: Day.tue24, users: [("ana", 30)]))
            _ = await store.save(Fixture.session("early", endedAt: Day.mon23, users: [("ana", 20)]))
            _ = await store.save(Fixture.session("older", endedAt: Day.sun22, users: [("ana", 7)]))
            let p = try #require(try await store.progress(userId: "ana").first)
            #expect(p.totalXP == 57)
            #expect(p.weeklyXP == 50)
            #expect(p.lastActivityDate == "2026-11-24")
            #expect(p.currentStreak == 3)
            #expect(p.longestStreak == 3)
        }
    }

    @Test("Progress is kept per language and listed sorted by language", arguments: StoreBackend.all)
    func perLanguage(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            _ = await store.save(Fixture.session("a", endedAt: Day.mon16, users: [("ana", 30)], targetLanguage: "fr"))
            _ = await store.save(Fixture.session("b", endedAt: Day.mon16, users: [("ana", 20)], targetLanguage: "de"))
            _ = await store.save(Fixture.session("c", endedAt: Day.mon16, users: [("ana", 5)], targetLanguage: "fr"))
            let all = try await store.progress(userId: "ana")
            #expect(all.map(\.language) == ["de", "fr"])
            #expect(all.map(\.totalXP) == [20, 35])
            #expect(try await store.progress(userId: "nobody").isEmpty)
        }
    }

    @Test("Streak counts consecutive UTC days ending today, recording today; at least 1", arguments: StoreBackend.all)
    func learnerStreak(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            #expect(await store.streak(userId: "ana", endingAt: Day.sun22 + 5) == 1)
            #expect(await store.streak(userId: "ana", endingAt: Day.mon23 + 23 * Day.hour) == 2)
            #expect(await store.streak(userId: "ana", endingAt: Day.mon23 + 1) == 2)
            #expect(await store.streak(userId: "ana", endingAt: Day.tue24) == 3)
            #expect(await store.streak(userId: "ana", endingAt: Day.fri27) == 1)
            #expect(await store.streak(userId: "bob", endingAt: Day.tue24) == 1)
            // A session saved on a recorded day continues the same streak in progress.
            _ = await store.save(Fixture.session("s", endedAt: Day.tue24 + Day.hour, users: [("ana", 1)]))
            #expect(try await store.progress(userId: "ana").first?.currentStreak == 3)
            #expect(store.learnerRecordFailures == 0)
        }
    }

    @Test("A long history: only the run ending today counts, however many days came before its gap", arguments: StoreBackend.all)
    func streakAfterALongHistory(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            // 300 days in a row, one day missed, then 9 days in a row ending on Friday the 27th.
            for back in Int64(10)..<310 { _ = await store.streak(userId: "ana", endingAt: Day.fri27 - back * Day.ms) }
            for back in Int64(1)..<9 { _ = await store.streak(userId: "ana", endingAt: Day.fri27 - back * Day.ms) }
            #expect(await store.streak(userId: "ana", endingAt: Day.fri27 - 10 * Day.ms) == 300)
            #expect(await store.streak(userId: "ana", endingAt: Day.fri27 + Day.hour) == 9)
            _ = await store.save(Fixture.session("s", endedAt: Day.fri27 + 2 * Day.hour, users: [("ana", 1), ("bob", 1)]))
            let ana = try #require(try await store.progress(userId: "ana").first)
            #expect(ana.currentStreak == 9)
            #expect(try await store.progress(userId: "bob").first?.currentStreak == 1)
            // A session of the day missed, applied late: it joins the two runs, counted back
            // from the last activity (the 27th), not from its own day.
            _ = await store.save(Fixture.session("late", endedAt: Day.fri27 - 9 * Day.ms, users: [("ana", 1)]))
            #expect(try await store.progress(userId: "ana").first?.currentStreak == 310)
            #expect(store.learnerRecordFailures == 0)
        }
    }

    @Test("Known words are kept per user and language", arguments: StoreBackend.all)
    func knownWords(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            #expect(await store.knownWords(userId: "ana", language: "es").isEmpty)
            await store.recordWords(["hola", "café"], userId: "ana", language: "es")
            await store.recordWords(["café", "leche"], userId: "ana", language: "es")
            await store.recordWords(["bonjour"], userId: "ana", language: "fr")
            await store.recordWords([], userId: "ana", language: "fr")
            #expect(await store.knownWords(userId: "ana", language: "es") == ["hola", "café", "leche"])
            #expect(await store.knownWords(userId: "ana", language: "fr") == ["bonjour"])
            #expect(await store.knownWords(userId: "bob", language: "es").isEmpty)
        }
    }

    @Test("An ended session's save makes everyone's new words known, premium or not, in the session's language", arguments: StoreBackend.all)
    func saveRecordsNewWords(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            #expect(store.recordsNewWords)
            try await store.makePremium("ana")
            await store.recordWords(["hola"], userId: "bob", language: "fr")
            var session = Fixture.session("w1", endedAt: Day.mon16, multiplayer: true, users: [("ana", 10), ("bob", 10)],
                                          targetLanguage: "fr")
            session.participants[0].newWords = ["bonjour", "merci"]
            session.participants[1].newWords = ["hola", "oui"]
            #expect(await store.save(session) == ["ana": .success, "bob": .error(.featureLocked)])
            #expect(await store.knownWords(userId: "ana", language: "fr") == ["bonjour", "merci"])
            #expect(await store.knownWords(userId: "bob", language: "fr") == ["hola", "oui"])
            #expect(await store.knownWords(userId: "ana", language: "es").isEmpty)
            let stored = try await store.storedKnownWords()
            #expect(stored >= 4)
            // Saved again (a retry after an unclear failure): nothing doubles, nothing fails.
            _ = await store.save(session)
            #expect(try await store.storedKnownWords() == stored)
            #expect(await store.knownWords(userId: "bob", language: "fr") == ["hola", "oui"])
            #expect(store.learnerRecordFailures == 0)
        }
    }

    @Test("Known words stored a row per word (before SQLite's schema version 9, PostgreSQL's 6) are read with the sets",
          arguments: StoreBackend.all)
    func knownWordsOfOlderNodes(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.execute("""
                INSERT INTO known_words (user_id, language, word) VALUES ('ana', 'fr', 'chat'), ('ana', 'fr', 'chien'), ('ana', 'es', 'gato')
                """)
            await store.recordWords(["chien", "oiseau"], userId: "ana", language: "fr")
            #expect(await store.knownWords(userId: "ana", language: "fr") == ["chat", "chien", "oiseau"])
            #expect(await store.knownWords(userId: "ana", language: "es") == ["gato"])
            #expect(await store.knownWords(userId: "bob", language: "fr").isEmpty)
            #expect(try await store.storedKnownWords() == 5)
            // A session's new words are one set per participant, not a row per word.
            var session = Fixture.session("sets", endedAt: Day.mon16, multiplayer: true, users: [("ana", 10), ("bob", 10)],
                                          targetLanguage: "fr")
            session.participants[0].newWords = ["loup", "renard", "chat"]
            session.participants[1].newWords = ["loup"]
            _ = await store.save(session)
            #expect(await store.knownWords(userId: "ana", language: "fr") == ["chat", "chien", "oiseau", "loup", "renard"])
            #expect(await store.knownWords(userId: "bob", language: "fr") == ["loup"])
            #expect(try await store.count("known_words") == 3, "no row per word is written any more")
            #expect(try await store.count("known_word_sets") == 3)
            #expect(store.learnerRecordFailures == 0)
        }
    }

    @Test("An ending session's streaks and words are recorded for everyone at once, as one by one", arguments: StoreBackend.all)
    func wholeSessionAtOnce(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            #expect(await store.streak(userId: "ana", endingAt: Day.mon23) == 1)
            let streaks = await store.streaks(userIds: ["ana", "bob"], endingAt: Day.tue24 + 5)
            #expect(streaks == ["ana": 2, "bob": 1])
            #expect(await store.streaks(userIds: ["ana", "bob"], endingAt: Day.tue24 + 9) == ["ana": 2, "bob": 1])
            await store.recordWords(["hola"], userId: "ana", language: "es")
            await store.recordWords(["ana": ["hola", "café"], "bob": ["leche"], "cy": []], language: "es")
            #expect(await store.knownWords(userId: "ana", language: "es") == ["hola", "café"])
            #expect(await store.knownWords(userId: "bob", language: "es") == ["leche"])
            #expect(await store.knownWords(userId: "cy", language: "es").isEmpty)
            #expect(store.learnerRecordFailures == 0)
        }
    }
}
