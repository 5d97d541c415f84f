import HubDomain

/// The progress rules every store applies the same way: adding one ended session to a learner's
/// progress in a language, streaks over session days, and reading progress as of a time.
package enum ProgressRules {
    /// Adds one participant's figures from one ended session to `stored` (nil: none yet).
    /// Sessions applied out of order (a retried write) add to the totals without moving the week
    /// or the last activity back.
    /// - Parameter streak: consecutive session days ending at the given day (the session's day
    ///   is recorded before this is called).
    package static func adding(_ session: EndedSession, _ participant: EndedParticipant, userId: String, language: String,
                       to stored: LanguageProgress?, weekStart storedWeek: Int64?,
                       streak: (Int64) throws -> Int) rethrows -> (progress: LanguageProgress, weekStart: Int64?) {
        let day = UTCCalendar.day(ofEpochMs: session.endedAt)
        var progress = stored ?? .empty(userId: userId, language: language)
        var weekStart = storedWeek
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
        progress.currentStreak = try streak(anchor)
        progress.longestStreak = max(progress.longestStreak, progress.currentStreak)
        progress.lastActivityDate = UTCCalendar.dateString(ofDay: anchor)

        progress.totalSessions += 1
        if session.multiplayer { progress.multiplayerSessions += 1 } else { progress.soloSessions += 1 }
        progress.totalMinutesPlayed += session.durationSeconds / 60
        let collaboration = participant.figures.collaboration
        progress.successfulRepairs += collaboration.successfulRepairs
        progress.helpGiven += collaboration.helpGiven
        progress.teamWins += collaboration.teamWins
        return (progress, weekStart)
    }

    /// Progress as of `now` (epoch ms, UTC): `weeklyXP` is 0 when the last session was in an
    /// earlier ISO week, `currentStreak` is 0 when the last session was before yesterday.
    package static func asOf(_ stored: LanguageProgress, weekStart: Int64?, now: Int64) -> LanguageProgress {
        let today = UTCCalendar.day(ofEpochMs: now)
        var progress = stored
        if weekStart != UTCCalendar.weekStart(ofDay: today) { progress.weeklyXP = 0 }
        let lastDay = progress.lastActivityDate.flatMap(UTCCalendar.day(ofDateString:))
        if let lastDay, lastDay < today - 1 { progress.currentStreak = 0 }
        return progress
    }

    /// Consecutive days ending at `day` inclusive, from session days sorted newest first
    /// (all on or before `day`); 0 when `day` has no session.
    package static func consecutiveDays<Days: Sequence>(_ newestFirst: Days, endingAt day: Int64) -> Int where Days.Element == Int64 {
        var expected = day
        var count = 0
        for sessionDay in newestFirst {
            guard sessionDay == expected else { break }
            count += 1
            expected -= 1
        }
        return count
    }
}
