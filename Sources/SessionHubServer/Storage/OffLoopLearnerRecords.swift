import HubDomain

/// The learners' records, read and written off the event loops (``OffTheLoops``).
struct OffLoopLearnerRecords: LearnerRecords {
    let inner: any LearnerRecords

    func knownWords(userId: String, language: String) async -> Set<String> {
        await OffTheLoops.run { await inner.knownWords(userId: userId, language: language) }
    }

    func recordWords(_ words: Set<String>, userId: String, language: String) async {
        await OffTheLoops.run { await inner.recordWords(words, userId: userId, language: language) }
    }

    func streak(userId: String, endingAt now: Int64) async -> Int {
        await OffTheLoops.run { await inner.streak(userId: userId, endingAt: now) }
    }

    func streaks(userIds: [String], endingAt now: Int64) async -> [String: Int] {
        await OffTheLoops.run { await inner.streaks(userIds: userIds, endingAt: now) }
    }

    func recordWords(_ words: [String: Set<String>], language: String) async {
        await OffTheLoops.run { await inner.recordWords(words, language: language) }
    }
}
