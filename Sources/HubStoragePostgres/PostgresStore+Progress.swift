import HubDomain
import HubStorage
import PostgresNIO

extension PostgresStore: ProgressRepository {
    public func progress(userId: String) async throws -> [UserProgress] {
        try await pool.client.withConnection { db in
            let vocabulary = try await Self.vocabularyCounts(db, userId: userId, now: nil, logger: logger)
            return try await Self.progressRows(db, userId: userId, language: nil, logger: logger).map {
                ProgressRules.stored($0.row, dailyGoalMinutes: $0.dailyGoalMinutes,
                                     vocabulary: vocabulary[$0.row.progress.language] ?? VocabularyCounts())
            }
        }
    }

    public func progress(userId: String, now: Int64) async throws -> [UserProgress] {
        try await pool.client.withConnection { db in
            let vocabulary = try await Self.vocabularyCounts(db, userId: userId, now: now, logger: logger)
            return try await Self.progressRows(db, userId: userId, language: nil, logger: logger).map {
                ProgressRules.asOf($0.row, dailyGoalMinutes: $0.dailyGoalMinutes,
                                   vocabulary: vocabulary[$0.row.progress.language] ?? VocabularyCounts(), now: now)
            }
        }
    }

    public func wordReviews(userId: String, language: String) async throws -> [String: WordReview] {
        try await pool.client.withConnection { db in
            try await Self.wordReviews(db, userId: userId, language: language, words: nil, logger: logger)
        }
    }

    static func progressRows(_ db: PostgresConnection, userId: String, language: String?, logger: Logger,
                             lock: Bool = false) async throws -> [(row: ProgressRow, dailyGoalMinutes: Int)] {
        let rows = try await db.query("""
            SELECT p.user_id, p.language, p.total_xp, p.weekly_xp, p.level, p.current_streak, p.longest_streak,
                   p.last_activity_date, p.total_sessions, p.solo_sessions, p.multiplayer_sessions,
                   p.total_minutes_played, p.successful_repairs, p.help_given, p.team_wins, p.week_start,
                   p.today_day, p.today_seconds, COALESCE(u.daily_goal_minutes, \(UserProfile.defaultDailyGoalMinutes))
            FROM progress p LEFT JOIN users u ON u.id = p.user_id
            WHERE p.user_id = \(userId) AND (\(language)::text IS NULL OR p.language = \(language))
            ORDER BY p.language\(unescaped: lock ? " FOR UPDATE OF p" : "")
            """, logger: logger)
        var result: [(ProgressRow, Int)] = []
        for try await (user, lang, total, weekly, level, current, longest, last, sessions, solo, multi, minutes, repairs,
                       help, wins, week, todayDay, todaySeconds, goal)
            in rows.decode((String, String, Int, Int, Int, Int, Int, String?, Int, Int, Int, Int, Int, Int, Int, Int64?,
                            Int64?, Int64, Int).self) {
            let progress = UserProgress(userId: user, language: lang, totalXP: total, weeklyXP: weekly, currentLevel: level,
                                        currentStreak: current, longestStreak: longest, lastActivityDate: last,
                                        totalSessions: sessions, soloSessions: solo, multiplayerSessions: multi,
                                        totalMinutesPlayed: minutes, successfulRepairs: repairs, helpGiven: help,
                                        teamWins: wins, dailyGoalMinutes: goal)
            result.append((ProgressRow(progress: progress, weekStart: week, todayDay: todayDay,
                                       todaySeconds: Int(todaySeconds)), goal))
        }
        return result
    }

    /// Per language: words met, learned, due (as of `now`, else as of the language's last
    /// review) and mastered.
    static func vocabularyCounts(_ db: PostgresConnection, userId: String, now: Int64?,
                                 logger: Logger) async throws -> [String: VocabularyCounts] {
        let rows = try await db.query("""
            SELECT w.language, COUNT(*)::bigint,
                   COUNT(*) FILTER (WHERE w.repetitions >= 1)::bigint,
                   COUNT(*) FILTER (WHERE w.next_review_at <= COALESCE(\(now)::bigint, m.last))::bigint,
                   COUNT(*) FILTER (WHERE w.interval_days >= \(WordReview.masteredIntervalDays))::bigint
            FROM word_reviews w
            JOIN (SELECT language, MAX(last_reviewed_at) AS last FROM word_reviews WHERE user_id = \(userId)
                  GROUP BY language) m ON m.language = w.language
            WHERE w.user_id = \(userId)
            GROUP BY w.language
            """, logger: logger)
        var counts: [String: VocabularyCounts] = [:]
        for try await (language, met, learned, due, mastered) in rows.decode((String, Int64, Int64, Int64, Int64).self) {
            counts[language] = VocabularyCounts(met: Int(met), learned: Int(learned), due: Int(due), mastered: Int(mastered))
        }
        return counts
    }

    /// The stored SM-2 states of the user's words in `language` (only `words`, when given).
    static func wordReviews(_ db: PostgresConnection, userId: String, language: String, words: [String]?,
                            logger: Logger) async throws -> [String: WordReview] {
        var states: [String: WordReview] = [:]
        func keep(_ row: WordReviewSelectStatement.Row) {
            let (word, ease, interval, repetitions, next, last) = row
            states[word] = WordReview(easeFactor: ease, intervalDays: interval, repetitions: repetitions,
                                      nextReviewAt: next, lastReviewedAt: last)
        }
        if let words {
            // The session-end path: a prepared statement.
            let rows = try await db.execute(WordReviewSelectStatement(userId: userId, language: language, words: words),
                                            logger: logger)
            for try await row in rows { keep(row) }
        } else {
            let rows = try await db.query("""
                SELECT word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
                FROM word_reviews WHERE user_id = \(userId) AND language = \(language)
                """, logger: logger)
            for try await row in rows.decode(WordReviewSelectStatement.Row.self) { keep(row) }
        }
        return states
    }

    /// Adds one participant's figures from one ended session (``ProgressRules``), recording the
    /// session's UTC day for streaks and the SM-2 review of the words they met, inside the
    /// caller's transaction.
    static func addToProgress(_ db: PostgresConnection, userId: String, language: String, session: EndedSession,
                              participant: EndedParticipant, vocabulary: SessionVocabulary,
                              logger: Logger) async throws {
        let day = UTCCalendar.day(ofEpochMs: session.endedAt)
        try await db.query("INSERT INTO session_days (user_id, day) VALUES (\(userId), \(day)) ON CONFLICT DO NOTHING",
                           logger: logger)
        let stored = try await progressRows(db, userId: userId, language: language, logger: logger, lock: true).first
        let days = try await sessionDays(db, userId: userId, logger: logger)
        let row = ProgressRules.adding(session, participant, userId: userId, language: language, to: stored?.row) { anchor in
            ProgressRules.consecutiveDays(days.filter { $0 <= anchor }, endingAt: anchor)
        }
        let progress = row.progress
        try await db.query("""
            INSERT INTO progress (user_id, language, total_xp, weekly_xp, week_start, level, current_streak,
                                  longest_streak, last_activity_date, total_sessions, solo_sessions,
                                  multiplayer_sessions, total_minutes_played, successful_repairs, help_given, team_wins,
                                  today_day, today_seconds)
            VALUES (\(userId), \(language), \(progress.totalXP), \(progress.weeklyXP), \(row.weekStart),
                    \(progress.currentLevel), \(progress.currentStreak), \(progress.longestStreak),
                    \(progress.lastActivityDate), \(progress.totalSessions), \(progress.soloSessions),
                    \(progress.multiplayerSessions), \(progress.totalMinutesPlayed), \(progress.successfulRepairs),
                    \(progress.helpGiven), \(progress.teamWins), \(row.todayDay), \(Int64(row.todaySeconds)))
            ON CONFLICT (user_id, language) DO UPDATE SET
                total_xp = excluded.total_xp, weekly_xp = excluded.weekly_xp, week_start = excluded.week_start,
                level = excluded.level, current_streak = excluded.current_streak,
                longest_streak = excluded.longest_streak, last_activity_date = excluded.last_activity_date,
                total_sessions = excluded.total_sessions, solo_sessions = excluded.solo_sessions,
                multiplayer_sessions = excluded.multiplayer_sessions,
                total_minutes_played = excluded.total_minutes_played,
                successful_repairs = excluded.successful_repairs, help_given = excluded.help_given,
                team_wins = excluded.team_wins, today_day = excluded.today_day, today_seconds = excluded.today_seconds
            """, logger: logger)
        try await reviewWords(db, userId: userId, language: language, session: session,
                              vocabulary: vocabulary, logger: logger)
    }

    /// The SM-2 update of the words `userId` met in `session`, in two statements (one read, one
    /// upsert of every word), inside the caller's transaction.
    static func reviewWords(_ db: PostgresConnection, userId: String, language: String, session: EndedSession,
                            vocabulary: SessionVocabulary, logger: Logger) async throws {
        let qualities = vocabulary.reviews(of: userId)
        guard !qualities.isEmpty else { return }
        let existing = try await wordReviews(db, userId: userId, language: language, words: qualities.keys.sorted(),
                                             logger: logger)
        let updated = ProgressRules.reviewed(qualities, existing: existing, at: session.endedAt).sorted { $0.key < $1.key }
        let words = updated.map(\.key), eases = updated.map(\.value.easeFactor)
        let intervals = updated.map { Int64($0.value.intervalDays) }, repetitions = updated.map { Int64($0.value.repetitions) }
        let nexts = updated.map(\.value.nextReviewAt), lasts = updated.map(\.value.lastReviewedAt)
        _ = try await db.execute(WordReviewUpsertStatement(
            userId: userId, language: language, words: words, eases: eases, intervals: intervals,
            repetitions: repetitions, nextReviews: nexts, lastReviews: lasts), logger: logger)
    }

    /// The user's session days, newest first.
    static func sessionDays(_ db: PostgresConnection, userId: String, logger: Logger) async throws -> [Int64] {
        var days: [Int64] = []
        let rows = try await db.query("SELECT day FROM session_days WHERE user_id = \(userId) ORDER BY day DESC", logger: logger)
        for try await day in rows.decode(Int64.self) { days.append(day) }
        return days
    }
}
