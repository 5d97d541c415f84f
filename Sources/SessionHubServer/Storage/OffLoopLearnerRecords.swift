import HubDomain
import HubStorage

/// The learners' records, read and written off the event loops (``OffTheLoops``); known words
/// that `inner` holds in memory (``HubStorage/KnownWordsMemory``) are answered where the caller is.
struct OffLoopLearnerRecords: LearnerRecords {
    let inner: any LearnerRecords
    private let memory: (any KnownWordsMemory)?

    init(inner: any LearnerRecords) {
        self.inner = inner
        self.memory = inner as? any KnownWordsMemory
    }

    func knownWords(userId: String, language: String) async -> Set<String> {
        if let words = memory?.knownWordsInMemory(userId: userId, language: language) { return words }
        return await OffTheLoops.run { await inner.knownWords(userId: userId, language: language) }
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
