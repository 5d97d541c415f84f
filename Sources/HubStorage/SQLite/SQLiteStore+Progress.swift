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
            try Self.allWordReviews(db, userId: userId, language: language, limit: nil) ?? [:]
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
    /// recorded yet) and mastered.
    static func vocabularyCounts(_ db: SQLiteConnection, userId: String, now: Int64?) throws -> [String: VocabularyCounts] {
        var counts: [String: VocabularyCounts] = [:]
        let sql: String, arguments: [SQLiteValue]
        if let now {
            sql = vocabularyCountsSQL(dueAsOf: "?", from: "word_reviews w")
            arguments = [.integer(now), .text(userId)]
        } else {
            // As of the language's last session (its words' latest review before v5).
            sql = vocabularyCountsSQL(dueAsOf: "m.last", from: """
                word_reviews w
                JOIN (SELECT r.language, MAX(MAX(r.last_reviewed_at), COALESCE(p.last_session_at, 0)) AS last
                      FROM word_reviews r LEFT JOIN progress p ON p.user_id = r.user_id AND p.language = r.language
                      WHERE r.user_id = ? GROUP BY r.language) m
                  ON m.language = w.language
                """)
            arguments = [.text(userId), .text(userId)]
        }
        try db.forEachRow(sql, arguments) { row in
            counts[row.string(0)] = VocabularyCounts(met: row.int(1), learned: row.int(2), due: row.int(3), mastered: row.int(4))
            return true
        }
        return counts
    }

    /// The vocabulary figures per language of the user bound last, over `from` (aliasing
    /// `word_reviews` as `w`), with due words counted as of the SQL expression `asOf`.
    private static func vocabularyCountsSQL(dueAsOf asOf: String, from: String) -> String {
        """
        SELECT w.language, COUNT(*), SUM(w.repetitions >= 1), SUM(w.next_review_at <= \(asOf)),
               SUM(w.interval_days >= \(WordReview.masteredIntervalDays))
        FROM \(from)
        WHERE w.user_id = ?
        GROUP BY w.language
        """
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
    /// only the states that change are written (``ProgressRules/reviewed(_:existing:at:)``). The
    /// stored states come from the cache where it knows them; else, the first time, all of the
    /// learner's rows in one range scan when they are few enough (``WordReviewCache/wholeSetLimit``),
    /// or the words it does not know in one read. What was read and written is noted in
    /// `changes` for the cache (``WordReviewCache``).
    func reviewWords(_ db: SQLiteConnection, userId: String, language: String, session: EndedSession,
                     vocabulary: SessionVocabulary, changes: inout WordReviewCache.Changes) throws {
        let qualities = vocabulary.reviews(of: userId)
        guard !qualities.isEmpty else { return }
        let key = WordReviewCache.Key(userId: userId, language: language)
        let (limit, found) = reviewCache.withLock { ($0.wholeSetLimit, $0.lookUp(qualities.keys, for: key)) }
        var existing = found.known, unknown = found.unknown
        var noted: [String: WordReview?] = [:]
        if !unknown.isEmpty, found.coverage == .partial, limit > 0 {
            let all = try Self.allWordReviews(db, userId: userId, language: language, limit: limit)
            if let all {
                for (word, state) in all { noted[word] = state }
                for word in unknown { existing[word] = all[word] }
                unknown = []
            }
            changes.note(all == nil ? .tooLargeForWhole : .whole, for: key)
        }
        if !unknown.isEmpty {
            // The states of the words the cache does not know, in one read (as one JSON array);
            // a word not found has no row.
            for word in unknown { noted[word] = .some(nil) }
            try db.forEachRow("""
                SELECT word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
                FROM word_reviews WHERE user_id = ? AND language = ? AND word IN (SELECT value FROM json_each(?))
                """, [.text(userId), .text(language), .text(JSONTextArray.encode(unknown))]) { row in
                let state = Self.wordReview(row, from: 1)
                existing[row.string(0)] = state
                noted[row.string(0)] = state
                return true
            }
        }
        let updated = ProgressRules.reviewed(qualities, existing: existing, at: session.endedAt).sorted { $0.key < $1.key }
        try db.runEach("""
            INSERT INTO word_reviews (user_id, language, word, ease_factor, interval_days, repetitions,
                                      next_review_at, last_reviewed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, language, word) DO UPDATE SET
                ease_factor = excluded.ease_factor, interval_days = excluded.interval_days,
                repetitions = excluded.repetitions, next_review_at = excluded.next_review_at,
                last_reviewed_at = excluded.last_reviewed_at
            """, updated.lazy.map { word, state -> [SQLiteValue] in
                [.text(userId), .text(language), .text(word), .real(state.easeFactor), .int(state.intervalDays),
                 .int(state.repetitions), .integer(state.nextReviewAt), .integer(state.lastReviewedAt)]
            })
        for (word, state) in updated { noted[word] = state }
        changes.note(noted, for: key)
    }

    /// Every stored state of `userId`'s words in `language`, or nil when there are more than `limit`.
    static func allWordReviews(_ db: SQLiteConnection, userId: String, language: String,
                               limit: Int?) throws -> [String: WordReview]? {
        var states: [String: WordReview] = [:]
        var tooMany = false
        try db.forEachRow("""
            SELECT word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
            FROM word_reviews WHERE user_id = ? AND language = ?
            """, [.text(userId), .text(language)]) { row in
            guard states.count < limit ?? .max else {
                tooMany = true
                return false
            }
            states[row.string(0)] = Self.wordReview(row, from: 1)
            return true
        }
        return tooMany ? nil : states
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
