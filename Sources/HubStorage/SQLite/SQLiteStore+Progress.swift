import HubDomain

extension SQLiteStore: ProgressRepository {
    /// As stored after the user's last session: `weeklyXP` counts the ISO week of that session
    /// and `currentStreak` ends on its day. ``progress(userId:now:)`` reads them as of a time.
    public func progress(userId: String) async throws -> [LanguageProgress] {
        try database.withConnection { db in
            try db.query(Self.progressColumns + " WHERE user_id = ? ORDER BY language", [.text(userId)]) {
                Self.progressRow($0).progress
            }
        }
    }

    /// Progress as of `now` (epoch ms): `weeklyXP` is 0 when the last session was in an earlier
    /// ISO week, and `currentStreak` is 0 when the last session was before yesterday (UTC).
    public func progress(userId: String, now: Int64) async throws -> [LanguageProgress] {
        try database.withConnection { db in
            try db.query(Self.progressColumns + " WHERE user_id = ? ORDER BY language", [.text(userId)]) { row in
                let (stored, weekStart) = Self.progressRow(row)
                return ProgressRules.asOf(stored, weekStart: weekStart, now: now)
            }
        }
    }

    // MARK: Rows and updates

    static let progressColumns = """
        SELECT user_id, language, total_xp, weekly_xp, level, current_streak, longest_streak, last_activity_date,
               total_sessions, solo_sessions, multiplayer_sessions, total_minutes_played, successful_repairs,
               help_given, team_wins, week_start
        FROM progress
        """

    static func progressRow(_ row: SQLiteRow) -> (progress: LanguageProgress, weekStart: Int64?) {
        (LanguageProgress(userId: row.string(0), language: row.string(1), totalXP: row.int(2), weeklyXP: row.int(3),
                          level: row.int(4), currentStreak: row.int(5), longestStreak: row.int(6),
                          lastActivityDate: row.optionalString(7), totalSessions: row.int(8),
                          soloSessions: row.int(9), multiplayerSessions: row.int(10),
                          totalMinutesPlayed: row.int(11), successfulRepairs: row.int(12), helpGiven: row.int(13),
                          teamWins: row.int(14)),
         row.optionalInt64(15))
    }

    /// Adds one participant's figures from one ended session to their progress in `language`,
    /// recording the session's UTC day for streaks. Sessions applied out of order (a retried
    /// sealed session) add to the totals without moving the week or the last activity back.
    static func addToProgress(_ db: SQLiteConnection, userId: String, language: String,
                              session: EndedSession, participant: EndedParticipant) throws {
        let day = UTCCalendar.day(ofEpochMs: session.endedAt)
        try db.run("INSERT OR IGNORE INTO session_days (user_id, day) VALUES (?, ?)", [.text(userId), .integer(day)])
        let stored = try db.queryFirst(progressColumns + " WHERE user_id = ? AND language = ?",
                                       [.text(userId), .text(language)], row: progressRow)
        let (progress, weekStart) = try ProgressRules.adding(session, participant, userId: userId, language: language,
                                                             to: stored?.progress, weekStart: stored?.weekStart) {
            try consecutiveDays(db, userId: userId, endingAt: $0)
        }

        try db.run("""
            INSERT INTO progress (user_id, language, total_xp, weekly_xp, week_start, level, current_streak,
                                  longest_streak, last_activity_date, total_sessions, solo_sessions,
                                  multiplayer_sessions, total_minutes_played, successful_repairs, help_given, team_wins)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, language) DO UPDATE SET
                total_xp = excluded.total_xp, weekly_xp = excluded.weekly_xp, week_start = excluded.week_start,
                level = excluded.level, current_streak = excluded.current_streak,
                longest_streak = excluded.longest_streak, last_activity_date = excluded.last_activity_date,
                total_sessions = excluded.total_sessions, solo_sessions = excluded.solo_sessions,
                multiplayer_sessions = excluded.multiplayer_sessions,
                total_minutes_played = excluded.total_minutes_played,
                successful_repairs = excluded.successful_repairs, help_given = excluded.help_given,
                team_wins = excluded.team_wins
            """, [
                .text(userId), .text(language), .int(progress.totalXP), .int(progress.weeklyXP),
                .optionalInteger(weekStart), .int(progress.level), .int(progress.currentStreak),
                .int(progress.longestStreak), .optionalText(progress.lastActivityDate), .int(progress.totalSessions),
                .int(progress.soloSessions), .int(progress.multiplayerSessions), .int(progress.totalMinutesPlayed),
                .int(progress.successfulRepairs), .int(progress.helpGiven), .int(progress.teamWins),
            ])
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
