import Foundation
import HubDomain
import HubStorage
import PostgresNIO

extension PostgresStore: LearnerRecords {
    public func knownWords(userId: String, language: String) async -> Set<String> {
        do {
            var words = Set<String>()
            for row in try await pool.client.rows(of: PreparedQuery<KnownWords>(userId, language), logger: logger) {
                words.formUnion(try row.decode([String].self))
            }
            return words
        } catch {
            noteLearnerFailure(error)
            return []
        }
    }

    public func recordWords(_ words: Set<String>, userId: String, language: String) async {
        await recordWords([userId: words], language: language)
    }

    /// Every participant's new words in one insert (one commit), as a set of its own for each
    /// (under a new unique source: a repeated call stores the words again, and reads merge them).
    public func recordWords(_ words: [String: Set<String>], language: String) async {
        let insert = KnownWordsInsertStatement(words, language: language, source: "recorded:\(UUID().uuidString)")
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

    /// Every participant's streak in one statement: their session day recorded and the run of
    /// days ending at it read back.
    public func streaks(userIds: [String], endingAt now: Int64) async -> [String: Int] {
        let users = Set(userIds).sorted()
        guard !users.isEmpty else { return [:] }
        let day = UTCCalendar.day(ofEpochMs: now)
        var streaks: [String: Int] = [:]
        do {
            var days: [String: [Int64]] = [:]
            for row in try await pool.client.rows(of: PreparedQuery<AddSessionDay>(day, users), logger: logger) {
                let (userId, met) = try row.decode((String, Int64).self)
                days[userId, default: []].append(met)
            }
            for userId in users {
                streaks[userId] = max(1, ProgressRules.consecutiveDays(days[userId] ?? [], endingAt: day))
            }
        } catch {
            noteLearnerFailure(error)
            for userId in users { streaks[userId] = 1 }
        }
        return streaks
    }

    // MARK: Statements (prepared: every player's join and every ended session runs them)

    /// Arrays, not a row per word: a player's known words are read at every join, often
    /// hundreds, and a row per word cost the node more to receive than the words themselves. A
    /// row per set the player learned from (``KnownWordsInsertStatement``), then the words of
    /// `known_words`, where nodes before schema version 6 kept them, as one more array.
    private enum KnownWords: PreparedSQL {
        static let sql = """
            SELECT words FROM known_word_sets WHERE user_id = $1 AND language = $2
            UNION ALL
            SELECT coalesce(array_agg(word), '{}') FROM known_words WHERE user_id = $1 AND language = $2
            """
    }

    /// Day $1 recorded for users $2, and the run of days ending at it read back (``StreakRunSQL``;
    /// $1 itself counted as present: the read cannot see the insert's rows).
    private enum AddSessionDay: PreparedSQL {
        static let sql = """
            WITH RECURSIVE added AS (
                INSERT INTO session_days (user_id, day) SELECT u, $1 FROM unnest($2::text[]) AS u
                ON CONFLICT DO NOTHING
            ), \(StreakRunSQL.member(users: "$2", anchors: "array_fill($1::bigint, ARRAY[cardinality($2::text[])])", recorded: "$1"))
            \(StreakRunSQL.select)
            """
    }
}
