import HubDomain
import HubStorage
import PostgresNIO

extension PostgresStore: LearnerRecords {
    public func knownWords(userId: String, language: String) async -> Set<String> {
        do {
            let rows = try await pool.client.query(
                "SELECT word FROM known_words WHERE user_id = \(userId) AND language = \(language)", logger: logger)
            var words = Set<String>()
            for try await word in rows.decode(String.self) { words.insert(word) }
            return words
        } catch {
            noteLearnerFailure(error)
            return []
        }
    }

    public func recordWords(_ words: Set<String>, userId: String, language: String) async {
        guard !words.isEmpty else { return }
        do {
            _ = try await pool.client.execute(KnownWordsInsertStatement(userId: userId, language: language, words: Array(words)),
                                              logger: logger)
        } catch {
            noteLearnerFailure(error)
        }
    }

    public func streak(userId: String, endingAt now: Int64) async -> Int {
        let day = UTCCalendar.day(ofEpochMs: now)
        do {
            let days = try await pool.transaction { db in
                try await db.query("INSERT INTO session_days (user_id, day) VALUES (\(userId), \(day)) ON CONFLICT DO NOTHING",
                                   logger: logger)
                return try await Self.sessionDays(db, userId: userId, logger: logger)
            }
            return max(1, ProgressRules.consecutiveDays(days.filter { $0 <= day }, endingAt: day))
        } catch {
            noteLearnerFailure(error)
            return 1
        }
    }
}
