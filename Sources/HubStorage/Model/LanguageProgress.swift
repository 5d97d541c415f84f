/// A learner's progress in one language. Streaks and weekly XP count UTC days and ISO weeks.
public struct LanguageProgress: Codable, Sendable, Equatable {
    public var userId: String
    public var language: String
    public var totalXP: Int
    /// XP earned in the current UTC ISO week (Monday first).
    public var weeklyXP: Int
    /// 1 + ⌊√(totalXP / 100)⌋.
    public var level: Int
    public var currentStreak: Int
    public var longestStreak: Int
    /// UTC day of the last session, `YYYY-MM-DD`, or nil.
    public var lastActivityDate: String?
    public var totalSessions: Int
    public var soloSessions: Int
    public var multiplayerSessions: Int
    public var totalMinutesPlayed: Int
    public var successfulRepairs: Int
    public var helpGiven: Int
    public var teamWins: Int

    /// Zero progress.
    public static func empty(userId: String, language: String) -> LanguageProgress {
        LanguageProgress(userId: userId, language: language, totalXP: 0, weeklyXP: 0, level: 1, currentStreak: 0,
                         longestStreak: 0, lastActivityDate: nil, totalSessions: 0, soloSessions: 0,
                         multiplayerSessions: 0, totalMinutesPlayed: 0, successfulRepairs: 0, helpGiven: 0, teamWins: 0)
    }

    /// Creates a record.
    public init(userId: String, language: String, totalXP: Int, weeklyXP: Int, level: Int, currentStreak: Int,
                longestStreak: Int, lastActivityDate: String?, totalSessions: Int, soloSessions: Int,
                multiplayerSessions: Int, totalMinutesPlayed: Int, successfulRepairs: Int, helpGiven: Int, teamWins: Int) {
        self.userId = userId
        self.language = language
        self.totalXP = totalXP
        self.weeklyXP = weeklyXP
        self.level = level
        self.currentStreak = currentStreak
        self.longestStreak = longestStreak
        self.lastActivityDate = lastActivityDate
        self.totalSessions = totalSessions
        self.soloSessions = soloSessions
        self.multiplayerSessions = multiplayerSessions
        self.totalMinutesPlayed = totalMinutesPlayed
        self.successfulRepairs = successfulRepairs
        self.helpGiven = helpGiven
        self.teamWins = teamWins
    }
}
