/// Learner records that can answer a known-words read from memory: at once, without I/O or
/// waiting on a database lock (``SQLiteStore``, whose cache holds recently active learners' words).
///
/// The server reads learner records off its event loops; a read this answers is served on the
/// loop instead, with no hop to the storage thread and back.
public protocol KnownWordsMemory: Sendable {
    /// The known words of `userId` in `language` when they are held in memory; nil when they
    /// must be read from storage (``HubDomain/LearnerRecords/knownWords(userId:language:)``).
    func knownWordsInMemory(userId: String, language: String) -> Set<String>?
}
