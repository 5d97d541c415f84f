/// What the hub reads and records about a learner outside any session: the words already met
/// per language (for `newVocabulary`) and the current streak (for `streakBonus`).
/// The storage layer implements it; ``InMemoryLearnerRecords`` keeps it in memory.
public protocol LearnerRecords: Sendable {
    /// The words (lowercased) this user has met in `language` in earlier sessions.
    func knownWords(userId: String, language: String) async -> Set<String>
    /// Adds words to what the user has met in `language`.
    func recordWords(_ words: Set<String>, userId: String, language: String) async
    /// Consecutive UTC days with a session up to and including the day of `now` (epoch ms),
    /// counting the session ending now; at least 1.
    func streak(userId: String, endingAt now: Int64) async -> Int
    /// ``streak(userId:endingAt:)`` for everyone in an ending session, in one go where the
    /// storage can (one transaction instead of one per participant).
    func streaks(userIds: [String], endingAt now: Int64) async -> [String: Int]
    /// ``recordWords(_:userId:language:)`` for everyone in an ending session, in one go where the
    /// storage can.
    func recordWords(_ words: [String: Set<String>], language: String) async
}

extension LearnerRecords {
    /// One ``streak(userId:endingAt:)`` per user.
    public func streaks(userIds: [String], endingAt now: Int64) async -> [String: Int] {
        var streaks: [String: Int] = [:]
        for userId in userIds { streaks[userId] = await streak(userId: userId, endingAt: now) }
        return streaks
    }

    /// One ``recordWords(_:userId:language:)`` per user.
    public func recordWords(_ words: [String: Set<String>], language: String) async {
        for (userId, learned) in words.sorted(by: { $0.key < $1.key }) {
            await recordWords(learned, userId: userId, language: language)
        }
    }
}
