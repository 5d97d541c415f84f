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
        await recordWords([userId: words], language: language)
    }

    /// Every participant's new words in one insert (one commit).
    public func recordWords(_ words: [String: Set<String>], language: String) async {
        let insert = KnownWordsInsertStatement(words, language: language)
        guard !insert.words.isEmpty else { return }
        do {
            _ = try await pool.client.rows(of: insert, logger: logger)
        } catch {
            noteLearnerFailure(error)
        }
    }

    public func streak(userId: String, endingAt now: Int64) async -> Int {
        await streaks(userIds: [userId], endingAt: now)[userId] ?? 1
    }

    /// Every participant's streak in one statement: their session day recorded and their days
    /// read back (the read cannot see the insert's rows, so it adds the day itself).
    public func streaks(userIds: [String], endingAt now: Int64) async -> [String: Int] {
        let users = Set(userIds).sorted()
        guard !users.isEmpty else { return [:] }
        let day = UTCCalendar.day(ofEpochMs: now)
        var streaks: [String: Int] = [:]
        do {
            let rows = try await pool.client.query("""
                WITH added AS (
                    INSERT INTO session_days (user_id, day) SELECT u, \(day) FROM unnest(\(users)::text[]) AS u
                    ON CONFLICT DO NOTHING
                )
                SELECT user_id, day FROM session_days WHERE user_id = ANY(\(users)::text[]) AND day <= \(day)
                UNION SELECT u, \(day) FROM unnest(\(users)::text[]) AS u
                ORDER BY 1, 2 DESC
                """, logger: logger)
            var days: [String: [Int64]] = [:]
            for try await (userId, met) in rows.decode((String, Int64).self) { days[userId, default: []].append(met) }
            for userId in users {
                streaks[userId] = max(1, ProgressRules.consecutiveDays(days[userId] ?? [], endingAt: day))
            }
        } catch {
            noteLearnerFailure(error)
            for userId in users { streaks[userId] = 1 }
        }
        return streaks
    }
}
