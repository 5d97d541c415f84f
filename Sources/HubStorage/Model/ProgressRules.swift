import HubDomain

/// The progress rules every store applies the same way: adding one ended session to a learner's
/// progress in a language, streaks over session days, today's minutes, the vocabulary figures,
/// and reading progress as of a time.
package enum ProgressRules {
    /// Adds one participant's figures from one ended session to `stored` (nil: none yet).
    /// Sessions applied out of order (a retried write) add to the totals without moving the week,
    /// the day or the last activity back.
    /// - Parameter streak: consecutive session days ending at the given day (the session's day
    ///   is recorded before this is called).
    package static func adding(_ session: EndedSession, _ participant: EndedParticipant, userId: String, language: String,
                               to stored: ProgressRow?, streak: (Int64) throws -> Int) rethrows -> ProgressRow {
        let day = UTCCalendar.day(ofEpochMs: session.endedAt)
        var row = stored ?? ProgressRow(progress: .empty(userId: userId, language: language, dailyGoalMinutes: UserProfile.defaultDailyGoalMinutes), weekStart: nil,
                                        todayDay: nil, todaySeconds: 0, lastSessionAt: nil)
        let xp = participant.figures.stats.xpEarned

        row.progress.totalXP += xp
        row.progress.currentLevel = XPCalculator.level(totalXP: row.progress.totalXP)
        let week = UTCCalendar.weekStart(ofDay: day)
        if let current = row.weekStart, week < current {
            // An older week: already rolled over, counts in the total only.
        } else if week == row.weekStart {
            row.progress.weeklyXP += xp
        } else {
            row.progress.weeklyXP = xp
            row.weekStart = week
        }
        if let current = row.todayDay, day < current {
            // An older day: counts in the total minutes only.
        } else if day == row.todayDay {
            row.todaySeconds += session.durationSeconds
        } else {
            row.todaySeconds = session.durationSeconds
            row.todayDay = day
        }
        row.lastSessionAt = max(row.lastSessionAt ?? session.endedAt, session.endedAt)

        let anchor = streakAnchor(day: day, stored: stored)
        row.progress.currentStreak = try streak(anchor)
        row.progress.longestStreak = max(row.progress.longestStreak, row.progress.currentStreak)
        row.progress.lastActivityDate = UTCCalendar.dateString(ofDay: anchor)

        row.progress.totalSessions += 1
        if session.multiplayer { row.progress.multiplayerSessions += 1 } else { row.progress.soloSessions += 1 }
        row.progress.totalMinutesPlayed += session.durationSeconds / 60
        let collaboration = participant.figures.collaboration
        row.progress.successfulRepairs += collaboration.successfulRepairs
        row.progress.helpGiven += collaboration.helpGiven
        row.progress.teamWins += collaboration.teamWins
        return row
    }

    /// The day a streak is counted back from when a session of `day` is added to `stored`: that
    /// day, or the last activity's when it is later (a session applied out of order does not
    /// move the streak back).
    package static func streakAnchor(day: Int64, stored: ProgressRow?) -> Int64 {
        let lastDay = stored?.progress.lastActivityDate.flatMap(UTCCalendar.day(ofDateString:))
        return max(day, lastDay ?? day)
    }

    /// Progress as of `now` (epoch ms, UTC): `weeklyXP` is 0 when the last session was in an
    /// earlier ISO week, `todayMinutes` is 0 when it was on an earlier day, `currentStreak` is 0
    /// when it was before yesterday; `vocabulary` counts due words as of `now`.
    package static func asOf(_ row: ProgressRow, dailyGoalMinutes: Int, vocabulary: VocabularyCounts,
                             now: Int64) -> UserProgress {
        let today = UTCCalendar.day(ofEpochMs: now)
        var progress = stored(row, dailyGoalMinutes: dailyGoalMinutes, vocabulary: vocabulary)
        if row.weekStart != UTCCalendar.weekStart(ofDay: today) { progress.weeklyXP = 0 }
        if row.todayDay != today { progress.todayMinutes = 0 }
        let lastDay = progress.lastActivityDate.flatMap(UTCCalendar.day(ofDateString:))
        if let lastDay, lastDay < today - 1 { progress.currentStreak = 0 }
        return progress
    }

    /// Progress as stored after the last session: `todayMinutes` of that session's day;
    /// `vocabulary` counts due words as of that session (``ProgressRow/lastSessionAt``).
    package static func stored(_ row: ProgressRow, dailyGoalMinutes: Int, vocabulary: VocabularyCounts) -> UserProgress {
        var progress = row.progress
        progress.todayMinutes = row.todaySeconds / 60
        progress.dailyGoalMinutes = dailyGoalMinutes
        progress.totalWordsLearned = vocabulary.learned
        progress.wordsDueForReview = vocabulary.due
        progress.vocabularyMasteryPercent = vocabulary.met == 0 ? 0 : vocabulary.mastered * 100 / vocabulary.met
        let estimate = CEFREstimate(wordsLearned: vocabulary.learned)
        progress.estimatedCEFR = estimate.level
        progress.cefrProgressPercent = estimate.progressPercent
        return progress
    }

    /// The SM-2 states that words reviewed at `time` (epoch ms) with the given qualities
    /// (``SessionVocabulary/reviews(of:in:)``) move to, from their stored states (`existing`; a
    /// word without one is new): only the states that change, which is all a store writes. A
    /// word met again successfully before it is due (a learner's second session of the day)
    /// keeps its state (``WordReview/reviewed(quality:at:)``) and is left out; a failure is not.
    package static func reviewed(_ qualities: [String: Int], existing: [String: WordReview],
                                 at time: Int64) -> [String: WordReview] {
        let reviews = Array(qualities.lazy.map { (word: $0.key, quality: $0.value) })
        let updated = reviewed(reviews, existing: reviews.map { existing[$0.word] }, at: time)
        return Dictionary(uniqueKeysWithValues: updated.lazy.map { ($0.word, $0.state) })
    }

    /// ``reviewed(_:existing:at:)`` over distinct words in order, each with its stored state at
    /// the same position of `existing` (nil: none): the states that change, in the words' order.
    package static func reviewed(_ reviews: [(word: String, quality: Int)], existing: [WordReview?],
                                 at time: Int64) -> [(word: String, state: WordReview)] {
        var updated: [(word: String, state: WordReview)] = []
        updated.reserveCapacity(reviews.count)
        for ((word, quality), stored) in zip(reviews, existing) {
            guard let stored else {
                updated.append((word, WordReview.first(quality: quality, at: time)))
                continue
            }
            let next = stored.reviewed(quality: quality, at: time)
            if next != stored { updated.append((word, next)) }
        }
        return updated
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
