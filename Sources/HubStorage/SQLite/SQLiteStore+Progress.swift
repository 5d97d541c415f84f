import Foundation
import HubDomain

extension SQLiteStore: ProgressRepository {
    /// As stored after the user's last session: `weeklyXP` counts the ISO week of that session,
    /// `todayMinutes` its day, `currentStreak` ends on its day and due words are counted as of
    /// its end (``ProgressRow/lastSessionAt``). ``progress(userId:now:)`` reads them as of a time.
    public func progress(userId: String) async throws -> [UserProgress] {
        try database.withConnection { db in
            let vocabulary = try Self.vocabularyCounts(db, userId: userId, now: nil)
            return try db.query(Self.progressColumns + " WHERE p.user_id = ? ORDER BY p.language", [.text(userId)]) { row in
                ProgressRules.stored(Self.progressRow(row), dailyGoalMinutes: row.int(18),
                                     vocabulary: vocabulary[row.string(1)] ?? VocabularyCounts())
            }
        }
    }

    /// Progress as of `now` (epoch ms): `weeklyXP` is 0 when the last session was in an earlier
    /// ISO week, `todayMinutes` is 0 when it was on an earlier day, `currentStreak` is 0 when the
    /// last session was before yesterday (UTC), and due words are counted as of `now`.
    public func progress(userId: String, now: Int64) async throws -> [UserProgress] {
        try database.withConnection { db in
            let vocabulary = try Self.vocabularyCounts(db, userId: userId, now: now)
            return try db.query(Self.progressColumns + " WHERE p.user_id = ? ORDER BY p.language", [.text(userId)]) { row in
                ProgressRules.asOf(Self.progressRow(row), dailyGoalMinutes: row.int(18),
                                   vocabulary: vocabulary[row.string(1)] ?? VocabularyCounts(), now: now)
            }
        }
    }

    /// The SM-2 state of every word the user met in `language`.
    public func wordReviews(userId: String, language: String) async throws -> [String: WordReview] {
        try database.withConnection { db in
            try Self.storedWordReviews(db, userId: userId, language: language)[language]?.states ?? [:]
        }
    }

    // MARK: Rows and updates

    static let progressColumns = """
        SELECT p.user_id, p.language, p.total_xp, p.weekly_xp, p.level, p.current_streak, p.longest_streak,
               p.last_activity_date, p.total_sessions, p.solo_sessions, p.multiplayer_sessions,
               p.total_minutes_played, p.successful_repairs, p.help_given, p.team_wins, p.week_start,
               p.today_day, p.today_seconds, COALESCE(u.daily_goal_minutes, \(UserProfile.defaultDailyGoalMinutes)),
               p.last_session_at
        FROM progress p LEFT JOIN users u ON u.id = p.user_id
        """

    static func progressRow(_ row: SQLiteRow) -> ProgressRow {
        ProgressRow(
            progress: UserProgress(userId: row.string(0), language: row.string(1), totalXP: row.int(2),
                                   weeklyXP: row.int(3), currentLevel: row.int(4), currentStreak: row.int(5),
                                   longestStreak: row.int(6), lastActivityDate: row.optionalString(7),
                                   totalSessions: row.int(8), soloSessions: row.int(9), multiplayerSessions: row.int(10),
                                   totalMinutesPlayed: row.int(11), successfulRepairs: row.int(12),
                                   helpGiven: row.int(13), teamWins: row.int(14),
                                   dailyGoalMinutes: UserProfile.defaultDailyGoalMinutes),
            weekStart: row.optionalInt64(15), todayDay: row.optionalInt64(16), todaySeconds: row.int(17),
            lastSessionAt: row.optionalInt64(19))
    }

    static func wordReview(_ row: SQLiteRow, from column: Int) -> WordReview {
        WordReview(easeFactor: row.double(column), intervalDays: row.int(column + 1), repetitions: row.int(column + 2),
                   nextReviewAt: row.int64(column + 3), lastReviewedAt: row.int64(column + 4))
    }

    /// Per language: words met, learned, due (as of `now`, else as of the language's last
    /// session: ``ProgressRow/lastSessionAt``, or the words' latest review where it is not
    /// recorded yet) and mastered, over the learner's stored states (``storedWordReviews(_:userId:language:)``).
    static func vocabularyCounts(_ db: SQLiteConnection, userId: String, now: Int64?) throws -> [String: VocabularyCounts] {
        let stored = try storedWordReviews(db, userId: userId, language: nil)
        guard !stored.isEmpty else { return [:] }
        var lastSession: [String: Int64] = [:]
        if now == nil {
            try db.forEachRow("SELECT language, last_session_at FROM progress WHERE user_id = ? AND last_session_at IS NOT NULL",
                              [.text(userId)]) { row in
                lastSession[row.string(0)] = row.int64(1)
                return true
            }
        }
        var counts: [String: VocabularyCounts] = [:]
        for (language, learner) in stored {
            let asOf = now ?? max(learner.states.values.lazy.map(\.lastReviewedAt).max() ?? 0, lastSession[language] ?? 0)
            counts[language] = VocabularyCounts(learner.states.values, now: asOf)
        }
        return counts
    }

    /// Adds one participant's figures from one ended session to their progress in `language`,
    /// recording the session's UTC day for streaks and the SM-2 review of the words they met
    /// (``ProgressRules/reviewed(_:existing:at:)``). Sessions applied out of order (a retried
    /// sealed session) add to the totals without moving the week or the last activity back.
    func addToProgress(_ db: SQLiteConnection, userId: String, language: String,
                       session: EndedSession, participant: EndedParticipant,
                       vocabulary: SessionVocabulary, reviews: inout WordReviewCache.Changes) throws {
        let day = UTCCalendar.day(ofEpochMs: session.endedAt)
        try db.run("INSERT OR IGNORE INTO session_days (user_id, day) VALUES (?, ?)", [.text(userId), .integer(day)])
        let stored = try db.queryFirst(Self.progressColumns + " WHERE p.user_id = ? AND p.language = ?",
                                       [.text(userId), .text(language)], row: Self.progressRow)
        let row = try ProgressRules.adding(session, participant, userId: userId, language: language, to: stored) {
            try Self.consecutiveDays(db, userId: userId, endingAt: $0)
        }
        let progress = row.progress

        try db.run("""
            INSERT INTO progress (user_id, language, total_xp, weekly_xp, week_start, level, current_streak,
                                  longest_streak, last_activity_date, total_sessions, solo_sessions,
                                  multiplayer_sessions, total_minutes_played, successful_repairs, help_given, team_wins,
                                  today_day, today_seconds, last_session_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, language) DO UPDATE SET
                total_xp = excluded.total_xp, weekly_xp = excluded.weekly_xp, week_start = excluded.week_start,
                level = excluded.level, current_streak = excluded.current_streak,
                longest_streak = excluded.longest_streak, last_activity_date = excluded.last_activity_date,
                total_sessions = excluded.total_sessions, solo_sessions = excluded.solo_sessions,
                multiplayer_sessions = excluded.multiplayer_sessions,
                total_minutes_played = excluded.total_minutes_played,
                successful_repairs = excluded.successful_repairs, help_given = excluded.help_given,
                team_wins = excluded.team_wins, today_day = excluded.today_day, today_seconds = excluded.today_seconds,
                last_session_at = excluded.last_session_at
            """, [
                .text(userId), .text(language), .int(progress.totalXP), .int(progress.weeklyXP),
                .optionalInteger(row.weekStart), .int(progress.currentLevel), .int(progress.currentStreak),
                .int(progress.longestStreak), .optionalText(progress.lastActivityDate), .int(progress.totalSessions),
                .int(progress.soloSessions), .int(progress.multiplayerSessions), .int(progress.totalMinutesPlayed),
                .int(progress.successfulRepairs), .int(progress.helpGiven), .int(progress.teamWins),
                .optionalInteger(row.todayDay), .int(row.todaySeconds), .optionalInteger(row.lastSessionAt),
            ])
        try reviewWords(db, userId: userId, language: language, session: session,
                        vocabulary: vocabulary, changes: &reviews)
    }

    /// The SM-2 update of the words `userId` met in `session`, inside the caller's transaction:
    /// the states that change are written as one set (``WordReviewSet``), or, when the learner
    /// has ``WordReviewSet/mostSets`` sets in the language already, merged with everything stored
    /// into one set that replaces the others. The stored states come from the cache where it
    /// knows them; else all of the learner's states are read (a few sets), and kept whole in the
    /// cache when there are at most ``WordReviewCache/wholeSetLimit``. What was read and written
    /// is noted in `changes` for the cache (``WordReviewCache``).
    func reviewWords(_ db: SQLiteConnection, userId: String, language: String, session: EndedSession,
                     vocabulary: SessionVocabulary, changes: inout WordReviewCache.Changes) throws {
        let reviews = vocabulary.reviewList(of: userId)
        guard !reviews.isEmpty else { return }
        let key = WordReviewCache.Key(userId: userId, language: language)
        let (limit, found) = reviewCache.withLock { ($0.wholeSetLimit, $0.states(of: reviews.lazy.map(\.word), for: key)) }
        var existing = found.states
        var stored: StoredWordReviews?
        if found.unknown > 0 {
            let learner = try Self.storedWordReviews(db, userId: userId, language: language)[language] ?? StoredWordReviews()
            stored = learner
            let whole = learner.states.count <= limit
            if whole {
                changes.noteWhole(learner.states, for: key)
            } else if found.coverage == .partial {
                changes.noteTooLargeForWhole(key)
            }
            var read: [(key: String, value: WordReview?)] = []
            for index in existing.indices where existing[index] == nil {
                let state = learner.states[reviews[index].word]
                existing[index] = .some(state)
                if !whole { read.append((reviews[index].word, state)) }
            }
            changes.note(read, for: key)
        }
        let updated = ProgressRules.reviewed(reviews, existing: existing.map { $0 ?? nil }, at: session.endedAt)
        guard !updated.isEmpty else { return }
        changes.note(updated.lazy.map { (key: $0.word, value: Optional($0.state)) }, for: key)

        let sets = try stored?.sets ?? db.queryFirst("SELECT COUNT(*) FROM word_review_sets WHERE user_id = ? AND language = ?",
                                                      [.text(userId), .text(language)]) { $0.int(0) } ?? 0
        let value: [UInt8]
        if sets >= WordReviewSet.mostSets {
            // The merge: everything stored and this session's states in one set, the rest deleted.
            var all = try stored?.states ?? Self.storedWordReviews(db, userId: userId, language: language)[language]?.states ?? [:]
            for (word, state) in updated { all[word] = state }
            value = WordReviewSet.encode(all.sorted { $0.key < $1.key })
            try db.run("DELETE FROM word_review_sets WHERE user_id = ? AND language = ?", [.text(userId), .text(language)])
            try db.run("DELETE FROM word_reviews WHERE user_id = ? AND language = ?", [.text(userId), .text(language)])
        } else {
            value = WordReviewSet.encode(updated.sorted { $0.word < $1.word }.lazy.map { (key: $0.word, value: $0.state) })
        }
        try db.run("INSERT INTO word_review_sets (user_id, language, states) VALUES (?, ?, ?)",
                   [.text(userId), .text(language), .blob(Data(value))])
    }

    /// One learner's stored SM-2 states in one language and the number of sets they came from.
    struct StoredWordReviews {
        var states: [String: WordReview] = [:]
        var sets = 0

        /// Adds the states of one stored set, written after those already here.
        mutating func addSet(_ bytes: UnsafeRawBufferPointer) throws {
            try WordReviewSet.decode(bytes, into: &states)
            sets += 1
        }
    }

    /// The stored states of `userId`'s words per language (in `language` only, unless nil): the
    /// rows of `word_reviews` (schema versions 4 to 9) and every set, merged (``WordReviewSet``).
    static func storedWordReviews(_ db: SQLiteConnection, userId: String, language: String?) throws -> [String: StoredWordReviews] {
        var learners: [String: StoredWordReviews] = [:]
        let filter = language == nil ? "" : " AND language = ?"
        let binds: [SQLiteValue] = [.text(userId)] + (language.map { [.text($0)] } ?? [])
        try db.forEachRow("""
            SELECT language, word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
            FROM word_reviews WHERE user_id = ?\(filter)
            """, binds) { row in
            WordReviewSet.merge(Self.wordReview(row, from: 2), of: row.string(1),
                                into: &learners[row.string(0), default: StoredWordReviews()].states)
            return true
        }
        try db.forEachRow("SELECT language, states FROM word_review_sets WHERE user_id = ?\(filter) ORDER BY language, id",
                          binds) { row in
            let language = row.string(0)
            try row.withBytes(1) { bytes in try learners[language, default: StoredWordReviews()].addSet(bytes) }
            return true
        }
        return learners
    }

    /// Consecutive days in `session_days` ending at `day` inclusive (0 when `day` has no session).
    static func consecutiveDays(_ db: SQLiteConnection, userId: String, endingAt day: Int64) throws -> Int {
        var days: [Int64] = []
        var expected = day
        // Reads only as far as the run of consecutive days goes.
        try db.forEachRow("SELECT day FROM session_days WHERE user_id = ? AND day <= ? ORDER BY day DESC",
                          [.text(userId), .integer(day)]) { row in
            guard row.int64(0) == expected else { return false }
            days.append(expected)
            expected -= 1
            return true
        }
        return ProgressRules.consecutiveDays(days, endingAt: day)
    }
}
