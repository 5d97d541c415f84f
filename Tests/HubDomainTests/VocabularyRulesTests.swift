import HubDomain
import Testing

@Suite("Vocabulary: SM-2 reviews, the words of a session, the CEFR estimate")
struct VocabularyRulesTests {
    static let day: Int64 = 86_400_000

    @Test("SM-2: 1, 6, then interval × ease days; ease +0.1 at quality 5, −0.32 at 2, never below 1.3")
    func sm2Successes() {
        var word = WordReview.first(quality: 5, at: 0)
        #expect(word.repetitions == 1 && word.intervalDays == 1)
        #expect(abs(word.easeFactor - 2.6) < 1e-9)
        #expect(word.nextReviewAt == Self.day)
        word = word.reviewed(quality: 5, at: Self.day)
        #expect(word.repetitions == 2 && word.intervalDays == 6)
        #expect(abs(word.easeFactor - 2.7) < 1e-9)
        word = word.reviewed(quality: 4, at: 7 * Self.day)
        #expect(word.repetitions == 3)
        #expect(word.intervalDays == 16, "6 × 2.7 = 16.2")
        #expect(abs(word.easeFactor - 2.7) < 1e-9, "quality 4 keeps the ease")
        word = word.reviewed(quality: 4, at: 23 * Self.day)
        #expect(word.intervalDays == 43)
        #expect(word.isMastered)
        #expect(word.isLearned)
        #expect(!word.isDue(at: 23 * Self.day))
        #expect(word.isDue(at: word.nextReviewAt))
    }

    @Test("SM-2: a failure resets repetitions and makes the word due at once; ease has a floor")
    func sm2Failures() {
        var word = WordReview.first(quality: 5, at: 0).reviewed(quality: 5, at: Self.day)
        word = word.reviewed(quality: 2, at: 2 * Self.day)
        #expect(word.repetitions == 0)
        #expect(word.intervalDays == 0)
        #expect(word.nextReviewAt == 2 * Self.day)
        #expect(!word.isLearned)
        #expect(abs(word.easeFactor - 2.38) < 1e-9)
        for _ in 0..<10 { word = word.reviewed(quality: 0, at: 3 * Self.day) }
        #expect(word.easeFactor == WordReview.minimumEaseFactor)
        let fresh = WordReview.first(quality: 1, at: 5)
        #expect(fresh.repetitions == 0 && fresh.isDue(at: 5))
        #expect(abs(fresh.easeFactor - 1.96) < 1e-9)
    }

    @Test("SM-2: a success before the word is due changes nothing; a failure then does")
    func earlySuccess() {
        let word = WordReview.first(quality: 5, at: 0)
        #expect(word.reviewed(quality: 5, at: 1_000) == word)
        #expect(word.reviewed(quality: 3, at: 1_000) == word)
        let failed = word.reviewed(quality: 2, at: 1_000)
        #expect(failed.repetitions == 0 && failed.lastReviewedAt == 1_000 && failed.isDue(at: 1_000))
        // Once due, a success counts again.
        let due = word.reviewed(quality: 5, at: word.nextReviewAt)
        #expect(due.repetitions == 2 && due.lastReviewedAt == word.nextReviewAt)
    }

    @Test("SM-2: a review older than the word's last one changes nothing (a session written late)")
    func lateReview() {
        let failed = WordReview.first(quality: 5, at: 0).reviewed(quality: 1, at: 2 * Self.day)
        #expect(failed.repetitions == 0)
        #expect(failed.reviewed(quality: 5, at: Self.day) == failed, "an older success does not undo a newer failure")
        #expect(failed.reviewed(quality: 0, at: Self.day) == failed)
        #expect(failed.reviewed(quality: 5, at: 2 * Self.day).repetitions == 1, "the same time still counts")
    }

    @Test("A session's words: corrected ≤ 2, spoken 5, seen 4, lowest wins; words a recast took out get nothing")
    func sessionQualities() {
        let lines = [
            DialogLine(id: "l1", speakerId: "ana", roleName: "A", textNative: "Je veux un café!", textTranslated: "", timestamp: 1),
            DialogLine(id: "l2", speakerId: "bob", roleName: "B", textNative: "Un CAFÉ, bien sûr.", textTranslated: "", timestamp: 2),
            DialogLine(id: "l3", speakerId: "ana", roleName: "A", textNative: "Merci beaucoup", textTranslated: "", timestamp: 3),
        ]
        let recasts = [
            Recast(id: "r1", lineId: "l1", authorId: "bob", speakerId: "ana", correctedText: "Je voudrais un café.",
                   explanation: nil, issueTypes: [.grammar], timestamp: 4, accepted: true),
            Recast(id: "r2", lineId: "l3", authorId: "bob", speakerId: "ana", correctedText: "Merci beaucoup, monsieur",
                   explanation: nil, issueTypes: [.naturalness], timestamp: 5, accepted: false),
        ]
        let session = EndedSession(sessionId: "s", scenarioId: "x", scenarioTitle: "X", targetLanguage: "fr", multiplayer: true,
                                   startedAt: 0, endedAt: 10, cause: .hostEnded, goalReached: false, lines: lines,
                                   recasts: recasts, participants: [])
        #expect(SessionVocabulary.reviews(of: "ana", in: session) == [
            "voudrais": 2, "monsieur": 1, "je": 5, "un": 5, "café": 5, "merci": 5, "beaucoup": 5, "bien": 4, "sûr": 4,
        ])
        #expect(SessionVocabulary.reviews(of: "bob", in: session) == [
            "je": 4, "veux": 4, "un": 5, "café": 5, "bien": 5, "sûr": 5, "merci": 4, "beaucoup": 4,
        ])
    }

    @Test("A session reviews at most maxWordsPerSession words, corrected ones first")
    func boundPerSession() {
        let many = (0..<150).map { "w\($0)" }.joined(separator: " ")
        let lines = [
            DialogLine(id: "l1", speakerId: "bob", roleName: "B", textNative: many, textTranslated: "", timestamp: 1),
            DialogLine(id: "l2", speakerId: "ana", roleName: "A", textNative: "hola", textTranslated: "", timestamp: 2),
        ]
        let recasts = [Recast(id: "r1", lineId: "l2", authorId: "bob", speakerId: "ana", correctedText: "hola amigo",
                              explanation: nil, issueTypes: [.grammar], timestamp: 3, accepted: true)]
        let session = EndedSession(sessionId: "s", scenarioId: "x", scenarioTitle: "X", targetLanguage: "es", multiplayer: true,
                                   startedAt: 0, endedAt: 10, cause: .hostEnded, goalReached: false, lines: lines,
                                   recasts: recasts, participants: [])
        let reviews = SessionVocabulary.reviews(of: "ana", in: session)
        #expect(reviews.count == SessionVocabulary.maxWordsPerSession)
        #expect(reviews["amigo"] == 2)
        #expect(reviews["hola"] == 5)
    }

    @Test("CEFR estimate from learned words: A1 < 500 ≤ A2 < 1000 ≤ B1 < 2000 ≤ B2 < 4000 ≤ C1 < 8000 ≤ C2",
          arguments: [(0, CEFRLevel.a1, 0), (5, .a1, 1), (499, .a1, 99), (500, .a2, 0), (750, .a2, 50), (1000, .b1, 0),
                      (1999, .b1, 99), (2000, .b2, 0), (3000, .b2, 50), (4000, .c1, 0), (7999, .c1, 99), (8000, .c2, 100),
                      (50_000, .c2, 100), (-3, .a1, 0)])
    func cefrEstimate(words: Int, level: CEFRLevel, percent: Int) {
        #expect(CEFREstimate(wordsLearned: words) == CEFREstimate(level: level, progressPercent: percent))
    }
}
