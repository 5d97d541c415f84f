import HubDomain
import HubStorage
import PostgresNIO

extension PostgresStore: ProgressRepository {
    public func progress(userId: String) async throws -> [LanguageProgress] {
        try await pool.client.withConnection { db in
            try await Self.progressRows(db, userId: userId, language: nil, logger: logger).map(\.progress)
        }
    }

    public func progress(userId: String, now: Int64) async throws -> [LanguageProgress] {
        try await pool.client.withConnection { db in
            try await Self.progressRows(db, userId: userId, language: nil, logger: logger).map {
                ProgressRules.asOf($0.progress, weekStart: $0.weekStart, now: now)
            }
        }
    }

    static func progressRows(_ db: PostgresConnection, userId: String, language: String?, logger: Logger,
                             lock: Bool = false) async throws -> [(progress: LanguageProgress, weekStart: Int64?)] {
        let rows = try await db.query("""
            SELECT user_id, language, total_xp, weekly_xp, level, current_streak, longest_streak, last_activity_date,
                   total_sessions, solo_sessions, multiplayer_sessions, total_minutes_played, successful_repairs,
                   help_given, team_wins, week_start
            FROM progress WHERE user_id = \(userId) AND (\(language)::text IS NULL OR language = \(language))
            ORDER BY language\(unescaped: lock ? " FOR UPDATE" : "")
            """, logger: logger)
        var result: [(LanguageProgress, Int64?)] = []
        for try await (user, lang, total, weekly, level, current, longest, last, sessions, solo, multi, minutes, repairs,
                       help, wins, week)
            in rows.decode((String, String, Int, Int, Int, Int, Int, String?, Int, Int, Int, Int, Int, Int, Int, Int64?).self) {
            result.append((LanguageProgress(userId: user, language: lang, totalXP: total, weeklyXP: weekly, level: level,
                                            currentStreak: current, longestStreak: longest, lastActivityDate: last,
                                            totalSessions: sessions, soloSessions: solo, multiplayerSessions: multi,
                                            totalMinutesPlayed: minutes, successfulRepairs: repairs, helpGiven: help,
                                            teamWins: wins), week))
        }
        return result
    }

    /// Adds one participant's figures from one ended session (``ProgressRules``), recording the
    /// session's UTC day for streaks, inside the caller's transaction.
    static func addToProgress(_ db: PostgresConnection, userId: String, language: String, session: EndedSession,
                              participant: EndedParticipant, logger: Logger) async throws {
        let day = UTCCalendar.day(ofEpochMs: session.endedAt)
        try await db.query("INSERT INTO session_days (user_id, day) VALUES (\(userId), \(day)) ON CONFLICT DO NOTHING",
                           logger: logger)
        let stored = try await progressRows(db, userId: userId, language: language, logger: logger, lock: true).first
        let days = try await sessionDays(db, userId: userId, logger: logger)
        let (progress, weekStart) = ProgressRules.adding(session, participant, userId: userId, language: language,
                                                         to: stored?.progress, weekStart: stored?.weekStart) { anchor in
            ProgressRules.consecutiveDays(days.filter { $0 <= anchor }, endingAt: anchor)
        }
        try await db.query("""
            INSERT INTO progress (user_id, language, total_xp, weekly_xp, week_start, level, current_streak,
                                  longest_streak, last_activity_date, total_sessions, solo_sessions,
                                  multiplayer_sessions, total_minutes_played, successful_repairs, help_given, team_wins)
            VALUES (\(userId), \(language), \(progress.totalXP), \(progress.weeklyXP), \(weekStart), \(progress.level),
                    \(progress.currentStreak), \(progress.longestStreak), \(progress.lastActivityDate),
                    \(progress.totalSessions), \(progress.soloSessions), \(progress.multiplayerSessions),
                    \(progress.totalMinutesPlayed), \(progress.successfulRepairs), \(progress.helpGiven), \(progress.teamWins))
            ON CONFLICT (user_id, language) DO UPDATE SET
                total_xp = excluded.total_xp, weekly_xp = excluded.weekly_xp, week_start = excluded.week_start,
                level = excluded.level, current_streak = excluded.current_streak,
                longest_streak = excluded.longest_streak, last_activity_date = excluded.last_activity_date,
                total_sessions = excluded.total_sessions, solo_sessions = excluded.solo_sessions,
                multiplayer_sessions = excluded.multiplayer_sessions,
                total_minutes_played = excluded.total_minutes_played,
                successful_repairs = excluded.successful_repairs, help_given = excluded.help_given,
                team_wins = excluded.team_wins
            """, logger: logger)
    }

    /// The user's session days, newest first.
    static func sessionDays(_ db: PostgresConnection, userId: String, logger: Logger) async throws -> [Int64] {
        var days: [Int64] = []
        let rows = try await db.query("SELECT day FROM session_days WHERE user_id = \(userId) ORDER BY day DESC", logger: logger)
        for try await day in rows.decode(Int64.self) { days.append(day) }
        return days
    }
}
