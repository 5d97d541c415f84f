import HubDomain

/// One stored row of progress: the counters of ``UserProgress`` kept as of the learner's last
/// session, and what rolls over with time (the ISO week of `weeklyXP`, the UTC day of today's
/// seconds).
package struct ProgressRow: Sendable, Equatable {
    /// The stored counters; the fields computed on reading (today's minutes, daily goal,
    /// vocabulary) are not stored and left at their defaults here.
    package var progress: UserProgress
    /// The Monday (UTC day number) of the week `weeklyXP` counts, nil before any session.
    package var weekStart: Int64?
    /// The UTC day `todaySeconds` counts, nil before any session (or before schema v4).
    package var todayDay: Int64?
    /// Seconds of the sessions that ended on `todayDay`.
    package var todaySeconds: Int
    /// Epoch ms of the latest session counted in this language (its end), nil before any
    /// session since schema version 5 (both stores). Stored due words are counted as of
    /// this time: a session whose words were all met before they were due changes no word's
    /// state, so the words' own review times cannot tell when it was.
    package var lastSessionAt: Int64?

    package init(progress: UserProgress, weekStart: Int64?, todayDay: Int64?, todaySeconds: Int, lastSessionAt: Int64?) {
        self.progress = progress
        self.weekStart = weekStart
        self.todayDay = todayDay
        self.todaySeconds = todaySeconds
        self.lastSessionAt = lastSessionAt
    }
}
