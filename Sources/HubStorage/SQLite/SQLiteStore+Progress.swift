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
        let today = UTCCalendar.day(ofEpochMs: now)
        let thisWeek = UTCCalendar.weekStart(ofDay: today)
        return try database.withConnection { db in
            try db.query(Self.progressColumns + " WHERE user_id = ? ORDER BY language", [.text(userId)]) { row in
                let (stored, weekStart) = Self.progressRow(row)
                var progress = stored
                if weekStart != thisWeek { progress.weeklyXP = 0 }
                let lastDay = progress.lastActivityDate.flatMap(UTCCalendar.day(ofDateString:))
                if let lastDay, lastDay < today - 1 { progress.currentStreak = 0 }
                return progress
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
        var progress = stored?.progress ?? .empty(userId: userId, language: language)
        var weekStart = stored?.weekStart
        let xp = participant.figures.stats.xpEarned

        progress.totalXP += xp
        progress.level = XPCalculator.level(totalXP: progress.totalXP)
        let week = UTCCalendar.weekStart(ofDay: day)
        if let current = weekStart, week < current {
            // An older week: already rolled over, counts in the total only.
        } else if week == weekStart {
            progress.weeklyXP += xp
        } else {
            progress.weeklyXP = xp
            weekStart = week
        }

        let lastDay = progress.lastActivityDate.flatMap(UTCCalendar.day(ofDateString:))
        let anchor = max(day, lastDay ?? day)
        progress.currentStreak = try consecutiveDays(db, userId: userId, endingAt: anchor)
        progress.longestStreak = max(progress.longestStreak, progress.currentStreak)
        progress.lastActivityDate = UTCCalendar.dateString(ofDay: anchor)

        progress.totalSessions += 1
        if session.multiplayer { progress.multiplayerSessions += 1 } else { progress.soloSessions += 1 }
        progress.totalMinutesPlayed += session.durationSeconds / 60
        let collaboration = participant.figures.collaboration
        progress.successfulRepairs += collaboration.successfulRepairs
        progress.helpGiven += collaboration.helpGiven
        progress.teamWins += collaboration.teamWins

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
        var expected = day
        var count = 0
        try db.forEachRow("SELECT day FROM session_days WHERE user_id = ? AND day <= ? ORDER BY day DESC",
                          [.text(userId), .integer(day)]) { row in
            guard row.int64(0) == expected else { return false }
            count += 1
            expected -= 1
            return true
        }
        return count
    }
}
