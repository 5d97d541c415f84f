import Foundation
import HubDomain

extension SQLiteStore: LearnerRecords, KnownWordsMemory {
    /// The learner's known words: from memory when the cache holds them (``WordReviewCache``),
    /// else read (the words of every set in `known_word_sets`, and the rows `known_words` holds
    /// from before schema version 9) and kept there.
    public func knownWords(userId: String, language: String) async -> Set<String> {
        if let words = knownWordsInMemory(userId: userId, language: language) { return words }
        let key = WordReviewCache.Key(userId: userId, language: language)
        do {
            return try database.withConnection { db in
                let words = Set(try db.query("""
                    SELECT j.value FROM known_word_sets s, json_each(s.words) j WHERE s.user_id = ?1 AND s.language = ?2
                    UNION ALL
                    SELECT word FROM known_words WHERE user_id = ?1 AND language = ?2
                    """, [.text(userId), .text(language)]) { $0.string(0) })
                reviewCache.withLock { $0.keep(knownWords: words, for: key) }
                return words
            }
        } catch {
            noteLearnerFailure()
            return []
        }
    }

    public func knownWordsInMemory(userId: String, language: String) -> Set<String>? {
        reviewCache.withLock { $0.knownWords(for: WordReviewCache.Key(userId: userId, language: language)) }
    }

    public func recordWords(_ words: Set<String>, userId: String, language: String) async {
        await recordWords([userId: words], language: language)
    }

    /// Records the UTC day of `now` as a session day and counts consecutive session days ending
    /// on it (at least 1).
    public func streak(userId: String, endingAt now: Int64) async -> Int {
        let day = UTCCalendar.day(ofEpochMs: now)
        do {
            let days = try database.transaction { db in
                try db.run("INSERT OR IGNORE INTO session_days (user_id, day) VALUES (?, ?)",
                           [.text(userId), .integer(day)])
                return try Self.consecutiveDays(db, userId: userId, endingAt: day)
            }
            return max(1, days)
        } catch {
            noteLearnerFailure()
            return 1
        }
    }

    /// Every participant's words in one transaction, as a set of its own for each (under a new
    /// unique source: a repeated call stores the words again, and reads merge them).
    public func recordWords(_ words: [String: Set<String>], language: String) async {
        guard words.values.contains(where: { !$0.isEmpty }) else { return }
        do {
            try writeTransaction { db, changes in
                try Self.addKnownWords(db, words.map { ($0.key, $0.value) }, language: language,
                                       source: "recorded:\(UUID().uuidString)", changes: &changes)
            }
        } catch {
            noteLearnerFailure()
        }
    }

    /// Each user's `words` added to their known words in `language`, one row of
    /// `known_word_sets` per user (the words as a sorted JSON array) under `source`, what taught
    /// them: a source already stored for a user is left alone, so a retried write adds nothing.
    /// Inside the caller's transaction (``writeTransaction(_:)``, which records them in the cache
    /// once it commits); users in id order.
    static func addKnownWords(_ db: SQLiteConnection, _ words: [(userId: String, words: Set<String>)],
                              language: String, source: String, changes: inout WordReviewCache.Changes) throws {
        for (userId, learned) in words.sorted(by: { $0.userId < $1.userId }) where !learned.isEmpty {
            try db.run("INSERT OR IGNORE INTO known_word_sets (user_id, language, source, words) VALUES (?, ?, ?, ?)",
                       [.text(userId), .text(language), .text(source), .text(JSONTextArray.encode(learned.sorted()))])
            changes.noteKnownWords(learned, for: WordReviewCache.Key(userId: userId, language: language))
        }
    }

    /// Every participant's streak in one transaction (each at least 1).
    public func streaks(userIds: [String], endingAt now: Int64) async -> [String: Int] {
        let day = UTCCalendar.day(ofEpochMs: now)
        do {
            return try database.transaction { db in
                var streaks: [String: Int] = [:]
                for userId in userIds {
                    try db.run("INSERT OR IGNORE INTO session_days (user_id, day) VALUES (?, ?)",
                               [.text(userId), .integer(day)])
                    streaks[userId] = max(1, try Self.consecutiveDays(db, userId: userId, endingAt: day))
                }
                return streaks
            }
        } catch {
            noteLearnerFailure()
            return Dictionary(userIds.map { ($0, 1) }, uniquingKeysWith: { first, _ in first })
        }
    }
}
