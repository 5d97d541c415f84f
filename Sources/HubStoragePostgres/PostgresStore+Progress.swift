import HubDomain
import HubStorage
import NIOCore
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
    /// recorded yet) and mastered, over the learner's stored states (``storedWordReviews(_:userId:language:logger:)``).
    static func vocabularyCounts(_ db: PostgresConnection, userId: String, now: Int64?,
                                 logger: Logger) async throws -> [String: VocabularyCounts] {
        let stored = try await storedWordReviews(db, userId: userId, language: nil, logger: logger)
        guard !stored.isEmpty else { return [:] }
        var lastSession: [String: Int64] = [:]
        if now == nil {
            let rows = try await db.query("""
                SELECT language, last_session_at FROM progress WHERE user_id = \(userId) AND last_session_at IS NOT NULL
                """, logger: logger)
            for try await (language, last) in rows.decode((String, Int64).self) { lastSession[language] = last }
        }
        var counts: [String: VocabularyCounts] = [:]
        for (language, states) in stored {
            let asOf = now ?? max(states.values.lazy.map(\.lastReviewedAt).max() ?? 0, lastSession[language] ?? 0)
            counts[language] = VocabularyCounts(states.values, now: asOf)
        }
        return counts
    }

    /// The stored SM-2 states of the user's words in `language`.
    static func wordReviews(_ db: PostgresConnection, userId: String, language: String,
                            logger: Logger) async throws -> [String: WordReview] {
        try await storedWordReviews(db, userId: userId, language: language, logger: logger)[language] ?? [:]
    }

    /// The stored states of `userId`'s words per language (in `language` only, unless nil): the
    /// rows of `word_reviews` (schema versions 2 to 6) and every set, merged (``WordReviewSet``).
    static func storedWordReviews(_ db: PostgresConnection, userId: String, language: String?,
                                  logger: Logger) async throws -> [String: [String: WordReview]] {
        var learners: [String: [String: WordReview]] = [:]
        let rows = try await db.query("""
            SELECT language, word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
            FROM word_reviews WHERE user_id = \(userId) AND (\(language)::text IS NULL OR language = \(language))
            """, logger: logger)
        for try await (language, word, ease, interval, repetitions, next, last)
            in rows.decode((String, String, Double, Int, Int, Int64, Int64).self) {
            WordReviewSet.merge(WordReview(easeFactor: ease, intervalDays: interval, repetitions: repetitions,
                                           nextReviewAt: next, lastReviewedAt: last),
                                of: word, into: &learners[language, default: [:]])
        }
        let sets = try await db.query("""
            SELECT language, states FROM word_review_sets
            WHERE user_id = \(userId) AND (\(language)::text IS NULL OR language = \(language)) ORDER BY language, id
            """, logger: logger)
        for try await (language, states) in sets.decode((String, ByteBuffer).self) {
            try states.withUnsafeReadableBytes { try WordReviewSet.decode($0, into: &learners[language, default: [:]]) }
        }
        return learners
    }

    /// Adds the figures of `learners` (each once) from one ended session (``ProgressRules``),
    /// recording the session's UTC day for streaks and the SM-2 review of the words they met,
    /// inside the caller's transaction: at most nine statements whatever the number of learners.
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

    /// The SM-2 update of the words each learner met in `session`, inside the caller's
    /// transaction, in at most five statements whatever the number of learners: their sets and
    /// their older rows for the words met are read; the states that change are written as one
    /// set per learner (``WordReviewSet``); a learner with ``WordReviewSet/mostSets`` sets in the
    /// language already gets one set of everything instead, their other sets and rows deleted.
    static func reviewWords(_ db: PostgresConnection, _ learners: [EndedLearner], session: EndedSession,
                            vocabulary: SessionVocabulary, logger: Logger) async throws {
        let reviewing = zip(learners, learners.map { vocabulary.reviews(of: $0.userId) }).filter { !$0.1.isEmpty }
        guard !reviewing.isEmpty else { return }
        let userIds = reviewing.map(\.0.userId), languages = reviewing.map(\.0.language)
        // Every set of each learner (a user is one learner of a session), in the order written.
        var stored: [String: (states: [String: WordReview], sets: Int)] = [:]
        for row in try await db.rows(of: PreparedQuery<LearnerSets>(userIds, languages), logger: logger) {
            let (userId, states) = try row.decode((String, ByteBuffer).self)
            try states.withUnsafeReadableBytes { try WordReviewSet.decode($0, into: &stored[userId, default: ([:], 0)].states) }
            stored[userId, default: ([:], 0)].sets += 1
        }
        // Rows of older versions, for the words met.
        var select = WordReviewSelectStatement()
        for (learner, words) in reviewing { select.append(userId: learner.userId, language: learner.language, words: words.keys) }
        var legacy: [String: [String: WordReview]] = [:]
        for try await found in try await db.execute(select, logger: logger) {
            for (userId, word, review) in found { legacy[userId, default: [:]][word] = review }
        }
        var written: [(learner: EndedLearner, states: [String: WordReview])] = []
        var merging: [EndedLearner] = []
        for (learner, words) in reviewing {
            // The rows under the sets, as every read merges them.
            var existing = legacy[learner.userId] ?? [:]
            for (word, state) in stored[learner.userId]?.states ?? [:] { WordReviewSet.merge(state, of: word, into: &existing) }
            let updated = ProgressRules.reviewed(words, existing: existing, at: session.endedAt)
            // Words met again successfully before they are due keep their states: often nothing
            // changes at all.
            guard !updated.isEmpty else { continue }
            if stored[learner.userId]?.sets ?? 0 >= WordReviewSet.mostSets {
                existing.merge(updated) { _, new in new }
                written.append((learner, existing))
                merging.append(learner)
            } else {
                written.append((learner, updated))
            }
        }
        if !merging.isEmpty {
            // The merge: the learners' other sets go, and their rows, whose states join the one set.
            try await db.query("""
                DELETE FROM word_review_sets WHERE (user_id, language) IN
                    (SELECT * FROM unnest(\(merging.map(\.userId))::text[], \(merging.map(\.language))::text[]))
                """, logger: logger)
            let rows = try await db.query("""
                DELETE FROM word_reviews WHERE (user_id, language) IN
                    (SELECT * FROM unnest(\(merging.map(\.userId))::text[], \(merging.map(\.language))::text[]))
                RETURNING user_id, word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
                """, logger: logger)
            var deleted: [String: [String: WordReview]] = [:]
            for try await (userId, word, ease, interval, repetitions, next, last)
                in rows.decode((String, String, Double, Int, Int, Int64, Int64).self) {
                deleted[userId, default: [:]][word] = WordReview(easeFactor: ease, intervalDays: interval, repetitions: repetitions,
                                                                 nextReviewAt: next, lastReviewedAt: last)
            }
            for index in written.indices {
                guard var merged = deleted[written[index].learner.userId] else { continue }
                for (word, state) in written[index].states { WordReviewSet.merge(state, of: word, into: &merged) }
                written[index].states = merged
            }
        }
        guard !written.isEmpty else { return }
        let values = written.map { ByteBuffer(bytes: WordReviewSet.encode($0.states.sorted { $0.key < $1.key })) }
        _ = try await db.rows(of: PreparedQuery<InsertSets>(written.map(\.learner.userId), written.map(\.learner.language), values),
                              logger: logger)
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

    /// The word review sets of users $1 in languages $2 (pairwise), in the order written.
    private enum LearnerSets: PreparedSQL {
        static let sql = """
            SELECT s.user_id, s.states FROM unnest($1::text[], $2::text[]) AS k(u, l)
            JOIN word_review_sets s ON s.user_id = k.u AND s.language = k.l
            ORDER BY s.id
            """
    }

    /// One word review set per row of $1 (user), $2 (language), $3 (the set's value).
    private enum InsertSets: PreparedSQL {
        static let sql = """
            INSERT INTO word_review_sets (user_id, language, states)
            SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[])
            """
    }

    private enum StreakRuns: PreparedSQL {
        static let sql = "WITH RECURSIVE \(StreakRunSQL.member(users: "$1", anchors: "$2", recorded: "$3")) \(StreakRunSQL.select)"
    }
}
