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
            try await Self.wordReviews(db, userId: userId, language: language, logger: logger)
        }
    }

    /// The stored progress rows of `userId` (in `language` only, when given) with the user's
    /// daily goal.
    static func progressRows(_ db: PostgresConnection, userId: String, language: String?,
                             logger: Logger) async throws -> [(row: ProgressRow, dailyGoalMinutes: Int)] {
        try await progressRows(db.query("""
            SELECT \(unescaped: progressColumns)
            FROM progress p LEFT JOIN users u ON u.id = p.user_id
            WHERE p.user_id = \(userId) AND (\(language)::text IS NULL OR p.language = \(language))
            ORDER BY p.language
            """, logger: logger))
    }

    /// What ``progressRows(_:)`` decodes, from `progress p` joined with `users u`.
    static let progressColumns = """
        p.user_id, p.language, p.total_xp, p.weekly_xp, p.level, p.current_streak, p.longest_streak,
        p.last_activity_date, p.total_sessions, p.solo_sessions, p.multiplayer_sessions,
        p.total_minutes_played, p.successful_repairs, p.help_given, p.team_wins, p.week_start,
        p.today_day, p.today_seconds, COALESCE(u.daily_goal_minutes, \(UserProfile.defaultDailyGoalMinutes)),
        p.last_session_at
        """

    /// Decodes rows of ``progressColumns``.
    static func progressRows(_ rows: PostgresRowSequence) async throws -> [(row: ProgressRow, dailyGoalMinutes: Int)] {
        var result: [(ProgressRow, Int)] = []
        for try await row in rows { result.append(try progressRow(row)) }
        return result
    }

    /// Decodes one row of ``progressColumns``.
    static func progressRow(_ row: PostgresRow) throws -> (row: ProgressRow, dailyGoalMinutes: Int) {
        let (user, lang, total, weekly, level, current, longest, last, sessions, solo, multi, minutes, repairs,
             help, wins, week, todayDay, todaySeconds, goal, lastSession)
            = try row.decode((String, String, Int, Int, Int, Int, Int, String?, Int, Int, Int, Int, Int, Int, Int, Int64?,
                              Int64?, Int64, Int, Int64?).self)
        let progress = UserProgress(userId: user, language: lang, totalXP: total, weeklyXP: weekly, currentLevel: level,
                                    currentStreak: current, longestStreak: longest, lastActivityDate: last,
                                    totalSessions: sessions, soloSessions: solo, multiplayerSessions: multi,
                                    totalMinutesPlayed: minutes, successfulRepairs: repairs, helpGiven: help,
                                    teamWins: wins, dailyGoalMinutes: goal)
        return (ProgressRow(progress: progress, weekStart: week, todayDay: todayDay, todaySeconds: Int(todaySeconds),
                            lastSessionAt: lastSession), goal)
    }

    /// Per language: words met, learned, due (as of `now`, else as of the language's last
    /// session: ``ProgressRow/lastSessionAt``, or the words' latest review where it is not
    /// recorded yet) and mastered.
    static func vocabularyCounts(_ db: PostgresConnection, userId: String, now: Int64?,
                                 logger: Logger) async throws -> [String: VocabularyCounts] {
        let counted = """
            SELECT w.language, COUNT(*)::bigint,
                   COUNT(*) FILTER (WHERE w.repetitions >= 1)::bigint,
                   COUNT(*) FILTER (WHERE w.next_review_at <= m.last)::bigint,
                   COUNT(*) FILTER (WHERE w.interval_days >= \(WordReview.masteredIntervalDays))::bigint
            FROM word_reviews w
            """
        let rows: PostgresRowSequence
        if let now {
            rows = try await db.query("""
                \(unescaped: counted) CROSS JOIN (SELECT \(now)::bigint AS last) m
                WHERE w.user_id = \(userId) GROUP BY w.language
                """, logger: logger)
        } else {
            // As of the language's last session (its words' latest review before v5).
            rows = try await db.query("""
                \(unescaped: counted)
                JOIN (SELECT r.language, GREATEST(MAX(r.last_reviewed_at), MAX(p.last_session_at)) AS last
                      FROM word_reviews r LEFT JOIN progress p ON p.user_id = r.user_id AND p.language = r.language
                      WHERE r.user_id = \(userId) GROUP BY r.language) m ON m.language = w.language
                WHERE w.user_id = \(userId) GROUP BY w.language
                """, logger: logger)
        }
        var counts: [String: VocabularyCounts] = [:]
        for try await (language, met, learned, due, mastered) in rows.decode((String, Int64, Int64, Int64, Int64).self) {
            counts[language] = VocabularyCounts(met: Int(met), learned: Int(learned), due: Int(due), mastered: Int(mastered))
        }
        return counts
    }

    /// The stored SM-2 states of the user's words in `language`.
    static func wordReviews(_ db: PostgresConnection, userId: String, language: String,
                            logger: Logger) async throws -> [String: WordReview] {
        var states: [String: WordReview] = [:]
        let rows = try await db.query("""
            SELECT word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
            FROM word_reviews WHERE user_id = \(userId) AND language = \(language)
            """, logger: logger)
        for try await (word, ease, interval, repetitions, next, last) in rows.decode((String, Double, Int, Int, Int64, Int64).self) {
            states[word] = WordReview(easeFactor: ease, intervalDays: interval, repetitions: repetitions,
                                      nextReviewAt: next, lastReviewedAt: last)
        }
        return states
    }

    /// Adds the figures of `learners` (each once) from one ended session (``ProgressRules``),
    /// recording the session's UTC day for streaks and the SM-2 review of the words they met,
    /// inside the caller's transaction: at most six statements whatever the number of learners.
    static func addToProgress(_ db: PostgresConnection, _ learners: [EndedLearner], session: EndedSession,
                              vocabulary: SessionVocabulary, logger: Logger) async throws {
        guard !learners.isEmpty else { return }
        let userIds = learners.map(\.userId), languages = learners.map(\.language)
        let day = UTCCalendar.day(ofEpochMs: session.endedAt)
        try await db.query("""
            INSERT INTO session_days (user_id, day) SELECT u, \(day) FROM unnest(\(userIds)::text[]) AS u ON CONFLICT DO NOTHING
            """, logger: logger)
        var stored: [String: ProgressRow] = [:]
        for row in try await db.rows(of: PreparedQuery<LockProgress>(userIds, languages), logger: logger) {
            let entry = try progressRow(row)
            stored[entry.row.progress.userId] = entry.row
        }
        let anchors = learners.map { ProgressRules.streakAnchor(day: day, stored: stored[$0.userId]) }
        let days = try await streakRuns(db, userIds: userIds, anchors: anchors, recorded: day, logger: logger)
        let updated = learners.map { learner in
            ProgressRules.adding(session, learner.participant, userId: learner.userId, language: learner.language,
                                 to: stored[learner.userId]) { anchor in
                ProgressRules.consecutiveDays(days[learner.userId] ?? [], endingAt: anchor)
            }
        }
        try await writeProgress(db, updated, logger: logger)
        try await reviewWords(db, learners, session: session, vocabulary: vocabulary, logger: logger)
    }

    /// Inserts or replaces `rows` in one statement (nullable columns travel as a value and a
    /// flag: postgres-nio encodes no arrays of optionals).
    static func writeProgress(_ db: PostgresConnection, _ rows: [ProgressRow], logger: Logger) async throws {
        let progress = rows.map(\.progress)
        try await db.query("""
            INSERT INTO progress (user_id, language, total_xp, weekly_xp, week_start, level, current_streak,
                                  longest_streak, last_activity_date, total_sessions, solo_sessions,
                                  multiplayer_sessions, total_minutes_played, successful_repairs, help_given, team_wins,
                                  today_day, today_seconds, last_session_at)
            SELECT u, l, txp, wxp, CASE WHEN hws THEN ws END, lvl, cs, ls, CASE WHEN hla THEN la END, ts, ss, ms, tmp, sr, hg,
                   tw, CASE WHEN htd THEN td END, tsec, CASE WHEN hlsa THEN lsa END
            FROM unnest(\(progress.map(\.userId))::text[], \(progress.map(\.language))::text[],
                        \(progress.map(\.totalXP))::bigint[], \(progress.map(\.weeklyXP))::bigint[],
                        \(rows.map { $0.weekStart ?? 0 })::bigint[], \(rows.map { $0.weekStart != nil })::boolean[],
                        \(progress.map(\.currentLevel))::bigint[], \(progress.map(\.currentStreak))::bigint[],
                        \(progress.map(\.longestStreak))::bigint[],
                        \(progress.map { $0.lastActivityDate ?? "" })::text[], \(progress.map { $0.lastActivityDate != nil })::boolean[],
                        \(progress.map(\.totalSessions))::bigint[], \(progress.map(\.soloSessions))::bigint[],
                        \(progress.map(\.multiplayerSessions))::bigint[], \(progress.map(\.totalMinutesPlayed))::bigint[],
                        \(progress.map(\.successfulRepairs))::bigint[], \(progress.map(\.helpGiven))::bigint[],
                        \(progress.map(\.teamWins))::bigint[],
                        \(rows.map { $0.todayDay ?? 0 })::bigint[], \(rows.map { $0.todayDay != nil })::boolean[],
                        \(rows.map { Int64($0.todaySeconds) })::bigint[],
                        \(rows.map { $0.lastSessionAt ?? 0 })::bigint[], \(rows.map { $0.lastSessionAt != nil })::boolean[])
                 AS t(u, l, txp, wxp, ws, hws, lvl, cs, ls, la, hla, ts, ss, ms, tmp, sr, hg, tw, td, htd, tsec, lsa, hlsa)
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
            """, logger: logger)
    }

    /// The SM-2 update of the words each learner met in `session`, in at most two statements
    /// (one read of the stored states, one upsert of every state that changes; none when no
    /// state does), inside the caller's transaction.
    static func reviewWords(_ db: PostgresConnection, _ learners: [EndedLearner], session: EndedSession,
                            vocabulary: SessionVocabulary, logger: Logger) async throws {
        let qualities = learners.map { vocabulary.reviews(of: $0.userId) }
        var select = WordReviewSelectStatement()
        for (learner, words) in zip(learners, qualities) where !words.isEmpty {
            select.append(userId: learner.userId, language: learner.language, words: words.keys)
        }
        guard !select.isEmpty else { return }
        var existing: [String: [String: WordReview]] = [:]
        for try await found in try await db.execute(select, logger: logger) {
            for (userId, word, review) in found { existing[userId, default: [:]][word] = review }
        }
        var upsert = WordReviewUpsertStatement()
        for (learner, words) in zip(learners, qualities) where !words.isEmpty {
            let updated = ProgressRules.reviewed(words, existing: existing[learner.userId] ?? [:], at: session.endedAt)
            for (word, review) in updated.sorted(by: { $0.key < $1.key }) {
                upsert.append(userId: learner.userId, language: learner.language, word: word, review: review)
            }
        }
        // Words met again successfully before they are due keep their states: often nothing
        // changes at all.
        guard !upsert.isEmpty else { return }
        _ = try await db.execute(upsert, logger: logger)
    }

    /// The run of session days of each of `userIds` ending at its anchor (pairwise), newest
    /// first (``StreakRunSQL``); `recorded` was recorded earlier in the transaction.
    static func streakRuns(_ db: PostgresConnection, userIds: [String], anchors: [Int64], recorded: Int64,
                           logger: Logger) async throws -> [String: [Int64]] {
        var days: [String: [Int64]] = [:]
        for row in try await db.rows(of: PreparedQuery<StreakRuns>(userIds, anchors, recorded), logger: logger) {
            let (userId, day) = try row.decode((String, Int64).self)
            days[userId, default: []].append(day)
        }
        return days
    }

    // MARK: Statements (prepared: every ended session runs them)

    /// The progress rows of users $1 in languages $2 (pairwise), locked in the order every
    /// writer takes them.
    private enum LockProgress: PreparedSQL {
        static let sql = """
            SELECT \(progressColumns)
            FROM progress p LEFT JOIN users u ON u.id = p.user_id
            WHERE (p.user_id, p.language) IN (SELECT * FROM unnest($1::text[], $2::text[]))
            ORDER BY p.user_id COLLATE "C", p.language FOR UPDATE OF p
            """
    }

    private enum StreakRuns: PreparedSQL {
        static let sql = "WITH RECURSIVE \(StreakRunSQL.member(users: "$1", anchors: "$2", recorded: "$3")) \(StreakRunSQL.select)"
    }
}
