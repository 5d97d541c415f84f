import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("Vocabulary and the seed's UserProgress in the stores (SQLite and PostgreSQL)")
struct VocabularyStoreTests {
    static let start = Day.mon16 + 10 * Day.hour

    /// Ana says "Je veux un café", Bob recasts it to "Je voudrais un café" (accepted), Bob says
    /// "Bonjour Ana".
    static func session(_ id: String, endedAt: Int64, anaSays: String = "Je veux un café",
                        recast: Bool = true, bobSays: String = "Bonjour Ana!", seconds: Int = 150) -> EndedSession {
        let startedAt = endedAt - Int64(seconds) * 1000
        let lines = [
            DialogLine(id: "l1", speakerId: "ana", roleName: "Guest", textNative: anaSays, textTranslated: "…", timestamp: startedAt + 1),
            DialogLine(id: "l2", speakerId: "bob", roleName: "Host", textNative: bobSays, textTranslated: "…", timestamp: startedAt + 2),
        ]
        let recasts = recast ? [Recast(id: "r1", lineId: "l1", authorId: "bob", speakerId: "ana",
                                       correctedText: "Je voudrais un café.", explanation: nil, issueTypes: [.grammar],
                                       timestamp: startedAt + 3, accepted: true)] : []
        let participants = [
            Fixture.participant("ana", sessionId: id, xp: 20, mode: .host, startedAt: startedAt, endedAt: endedAt),
            Fixture.participant("bob", sessionId: id, xp: 20, mode: .client, startedAt: startedAt, endedAt: endedAt),
        ]
        return EndedSession(sessionId: id, scenarioId: "hotel-check-in", scenarioTitle: "Hotel", targetLanguage: "fr",
                            multiplayer: true, startedAt: startedAt, endedAt: endedAt, cause: .hostEnded,
                            goalReached: false, lines: lines, recasts: recasts, participants: participants)
    }

    @Test("Many words: every state is stored as the rules compute it, first and on a later review", arguments: StoreBackend.all)
    func manyWordsStoredExactly(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let words = (1...47).map { "mot\($0)" }
            let end = Self.start
            let first = Self.session("s1", endedAt: end, anaSays: words.joined(separator: " "), recast: false)
            _ = await store.save(first)
            let expectedFirst = ProgressRules.reviewed(SessionVocabulary.reviews(of: "ana", in: first), existing: [:], at: end)
            #expect(expectedFirst.count == 49, "47 said, bonjour and ana seen")
            #expect(try await store.wordReviews(userId: "ana", language: "fr") == expectedFirst)

            // Two days later every word is due: each stored row is read back, reviewed and updated.
            let later = end + 2 * Day.ms
            let second = Self.session("s2", endedAt: later, anaSays: words.dropFirst(5).joined(separator: " "), recast: false)
            _ = await store.save(second)
            var expectedSecond = expectedFirst
            for (word, state) in ProgressRules.reviewed(SessionVocabulary.reviews(of: "ana", in: second),
                                                        existing: expectedFirst, at: later) {
                expectedSecond[word] = state
            }
            let stored = try await store.wordReviews(userId: "ana", language: "fr")
            #expect(stored == expectedSecond)
            #expect(stored["mot10"]?.repetitions == 2)
            #expect(stored["mot1"]?.repetitions == 1, "not in the second session")
        }
    }

    @Test("Stored due words are counted as of the last session, also when it changed no word's state", arguments: StoreBackend.all)
    func dueAsOfTheLastSession(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let end = Self.start
            _ = await store.save(Self.session("s1", endedAt: end))                  // six words, due a day later ("voudrais" at once)
            _ = await store.save(Self.session("s2", endedAt: end + 12 * Day.hour, anaSays: "Salut", recast: false,
                                              bobSays: "Salut"))                     // "salut" new: due a day after s2
            let before = try await store.wordReviews(userId: "ana", language: "fr")
            // The day after: only "salut" is met, and it is not due yet: no state changes.
            _ = await store.save(Self.session("s3", endedAt: end + Day.ms + 6 * Day.hour, anaSays: "Salut", recast: false,
                                              bobSays: "Salut"))
            #expect(try await store.wordReviews(userId: "ana", language: "fr") == before)
            let stored = try #require(try await store.progress(userId: "ana").first)
            #expect(stored.totalSessions == 3)
            #expect(stored.wordsDueForReview == 6, "as of s3: all of s1's words, not as of s2 (the latest review)")
            // An older session written late (a retry) does not move the count back in time.
            _ = await store.save(Self.session("s0", endedAt: end - Day.hour, anaSays: "Salut", recast: false, bobSays: "Salut"))
            let late = try #require(try await store.progress(userId: "ana").first)
            #expect(late.totalSessions == 4)
            #expect(late.wordsDueForReview == 6)
        }
    }

    @Test("A word another learner met is not reviewed for a learner who did not, though it is read with theirs", arguments: StoreBackend.all)
    func anotherLearnersWordIsLeftAlone(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let end = Self.start
            _ = await store.save(Self.session("s1", endedAt: end, recast: false))   // Ana says "veux"
            let veux = try #require(try await store.wordReviews(userId: "ana", language: "fr")["veux"])
            // Two days later "veux" is due, but Bob's recast takes it out of Ana's line: only Bob meets it.
            _ = await store.save(Self.session("s2", endedAt: end + 2 * Day.ms))
            let after = try await store.wordReviews(userId: "ana", language: "fr")
            #expect(after["veux"] == veux)
            #expect(after["je"]?.repetitions == 2, "her own words were due and are reviewed")
            #expect(try await store.wordReviews(userId: "bob", language: "fr")["veux"]?.repetitions == 2)
        }
    }

    @Test("Word states are one set per learner and session, merged into one after the most sets; rows of older versions read and merged too",
          arguments: StoreBackend.all)
    func wordReviewSets(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let legacyTime = Self.start - 30 * Day.ms
            let legacy = ["chat": WordReview.first(quality: 4, at: legacyTime), "je": WordReview.first(quality: 2, at: legacyTime)]
            for (word, state) in legacy {
                try await store.execute("""
                    INSERT INTO word_reviews (user_id, language, word, ease_factor, interval_days, repetitions,
                                              next_review_at, last_reviewed_at)
                    VALUES ('ana', 'fr', '\(word)', \(state.easeFactor), \(state.intervalDays), \(state.repetitions),
                            \(state.nextReviewAt), \(state.lastReviewedAt))
                    """)
            }
            #expect(try await store.wordReviews(userId: "ana", language: "fr") == legacy)
            var expected = legacy
            // Each session has a new word for each learner, so it changes states for both.
            for index in 1...(WordReviewSet.mostSets + 1) {
                let end = Self.start + Int64(index) * 2 * Day.ms
                let session = Self.session("s\(index)", endedAt: end, anaSays: "Je veux un café mot\(index)", recast: false,
                                           bobSays: "Bonjour Ana mot\(index)")
                _ = await store.save(session)
                expected.merge(ProgressRules.reviewed(SessionVocabulary.reviews(of: "ana", in: session), existing: expected, at: end)) { $1 }
                #expect(try await store.wordReviews(userId: "ana", language: "fr") == expected, "after session \(index)")
                let sets = try await store.count("word_review_sets")
                if index < WordReviewSet.mostSets + 1 {
                    #expect(sets == 2 * index, "one set per learner and session")
                    #expect(try await store.count("word_reviews") == 2, "older rows stay until the merge")
                } else {
                    #expect(sets == 2, "the merge leaves one set per learner")
                    #expect(try await store.count("word_reviews") == 0, "the merge took in the older rows")
                }
            }
            #expect(expected["chat"] == legacy["chat"], "a word not met again keeps its older state")
            #expect(expected["je"] != legacy["je"], "a word met again was reviewed from its older state")
            let progress = try #require(try await store.progress(userId: "ana", now: Self.start + 40 * Day.ms).first)
            let counts = VocabularyCounts(expected.values, now: Self.start + 40 * Day.ms)
            #expect(progress.totalWordsLearned == counts.learned)
            #expect(progress.wordsDueForReview == counts.due)
            #expect(counts.met == expected.count)
            // A row written after the sets by a node of an older version (a rolling upgrade on
            // PostgreSQL) holds the later review, so it wins over the sets' state of the word.
            let upgradeTime = Self.start + 50 * Day.ms
            let later = WordReview.first(quality: 1, at: upgradeTime)
            try await store.execute("""
                INSERT INTO word_reviews (user_id, language, word, ease_factor, interval_days, repetitions,
                                          next_review_at, last_reviewed_at)
                VALUES ('ana', 'fr', 'café', \(later.easeFactor), 0, 0, \(later.nextReviewAt), \(later.lastReviewedAt))
                """)
            expected["café"] = later
            #expect(try await store.wordReviews(userId: "ana", language: "fr") == expected)
        }
    }

    @Test("Only the states that change are written: new words, failures, words that were due")
    func onlyChangedStatesWritten() {
        let first = Self.start
        let known = WordReview.first(quality: 5, at: first)              // due a day later
        let failed = WordReview.first(quality: 1, at: first)             // due at once
        let existing = ["known": known, "heard": known, "failed": failed,
                        "due": WordReview.first(quality: 5, at: first - 2 * Day.ms)]
        let later = first + Day.hour
        let updated = ProgressRules.reviewed(["known": 5, "heard": 4, "failed": 4, "due": 4, "new": 5],
                                             existing: existing, at: later)
        #expect(Set(updated.keys) == ["failed", "due", "new"], "a success before the word is due writes nothing")
        #expect(updated["failed"]?.repetitions == 1)
        #expect(updated["due"]?.repetitions == 2)
        #expect(updated["new"] == WordReview.first(quality: 5, at: later))
        let slip = ProgressRules.reviewed(["known": 2], existing: existing, at: later)
        #expect(slip["known"]?.repetitions == 0, "a failure before the word is due is written")
    }

    @Test("A session end reviews every participant's words with SM-2 in the progress transaction", arguments: StoreBackend.all)
    func wordsReviewedAtSessionEnd(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let end = Self.start
            _ = await store.save(Self.session("s1", endedAt: end))
            let ana = try await store.wordReviews(userId: "ana", language: "fr")
            #expect(Set(ana.keys) == ["je", "un", "café", "voudrais", "bonjour", "ana"], "veux was taken out by the recast")
            let corrected = try #require(ana["voudrais"])
            #expect(corrected.repetitions == 0)
            #expect(corrected.intervalDays == 0)
            #expect(corrected.nextReviewAt == end, "a corrected word is due at once")
            #expect(abs(corrected.easeFactor - 2.18) < 1e-9)
            let spoken = try #require(ana["café"])
            #expect(spoken.repetitions == 1)
            #expect(spoken.intervalDays == 1)
            #expect(abs(spoken.easeFactor - 2.6) < 1e-9)
            #expect(spoken.nextReviewAt == end + Day.ms)
            #expect(spoken.lastReviewedAt == end)
            let seen = try #require(ana["bonjour"])
            #expect(abs(seen.easeFactor - 2.5) < 1e-9)
            let bob = try await store.wordReviews(userId: "bob", language: "fr")
            #expect(Set(bob.keys) == ["je", "veux", "un", "café", "bonjour", "ana"])

            let stored = try #require(try await store.progress(userId: "ana").first)
            #expect(stored.language == "fr")
            #expect(stored.totalWordsLearned == 5)
            #expect(stored.wordsDueForReview == 1)
            #expect(stored.vocabularyMasteryPercent == 0)
            #expect(stored.estimatedCEFR == .a1)
            #expect(stored.cefrProgressPercent == 1)
            #expect(stored.todayMinutes == 2)
            #expect(stored.dailyGoalMinutes == 10)
            #expect(stored.currentLevel == 1)

            // The same session written again (a retry) reviews nothing twice.
            _ = await store.save(Self.session("s1", endedAt: end))
            #expect(try await store.wordReviews(userId: "ana", language: "fr") == ana)

            // Later the same day: "voudrais" said right is relearned; "je" is not due, so its
            // state stays as it was, last review included.
            _ = await store.save(Self.session("s2", endedAt: end + Day.hour, anaSays: "Je voudrais un café", recast: false))
            let after = try await store.wordReviews(userId: "ana", language: "fr")
            #expect(after["voudrais"]?.repetitions == 1)
            #expect(after["voudrais"]?.intervalDays == 1)
            #expect(after["je"]?.repetitions == 1)
            #expect(after["je"]?.nextReviewAt == end + Day.ms)
            #expect(after["je"] == ana["je"])
            #expect(after["voudrais"]?.lastReviewedAt == end + Day.hour)
            let sameDay = try #require(try await store.progress(userId: "ana", now: end + 2 * Day.hour).first)
            #expect(sameDay.totalWordsLearned == 6)
            #expect(sameDay.wordsDueForReview == 0)
            #expect(sameDay.todayMinutes == 5, "150 s + 150 s on the same UTC day")
            #expect(sameDay.totalMinutesPlayed == 4, "each session's whole minutes")

            let nextDay = try #require(try await store.progress(userId: "ana", now: end + Day.ms + 2 * Day.hour).first)
            #expect(nextDay.todayMinutes == 0)
            #expect(nextDay.wordsDueForReview == 6)
        }
    }

    @Test("dailyGoalMinutes comes from the profile", arguments: StoreBackend.all)
    func dailyGoalFromProfile(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            var profile = UserProfile.initial(id: "ana", displayName: "Ana", now: 1)
            profile.dailyGoalMinutes = 25
            _ = try await store.saveProfile(profile)
            _ = await store.save(Self.session("s1", endedAt: Self.start))
            #expect(try await store.progress(userId: "ana", now: Self.start).first?.dailyGoalMinutes == 25)
            #expect(try await store.progress(userId: "bob", now: Self.start).first?.dailyGoalMinutes == 10)
        }
    }

    @Test("A stored profile with values that are no longer valid still reads (unknown enum values dropped, current language defaulted)",
          arguments: StoreBackend.all)
    func lenientProfileRows(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.execute("""
                INSERT INTO users (id, display_name, native_language, target_languages, current_target_language,
                                   interests, learning_goals, daily_goal_minutes, voice_speed, show_translations,
                                   is_premium, onboarding_completed, created_at, last_active_at)
                VALUES ('old', 'Old', 'en', '[{"code":"fr","proficiencyLevel":"A2","startedAt":5}]', NULL,
                        '["travel","knitting","FOOD","Food"]', '["connect with people","order in a café"]', 15,
                        'NORMAL', 'ALWAYS', FALSE, TRUE, 1, 2)
                """)
            let profile = try #require(try await store.profile(userId: "old"))
            #expect(profile.interests == [.travel, .food])
            #expect(profile.learningGoals == [.connectWithPeople])
            #expect(profile.currentTargetLanguage == "fr")
        }
    }
}
