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
}
