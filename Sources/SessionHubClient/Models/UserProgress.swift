import HubDomain

/// A learner's progress in one language as `GET /api/progress` sends it: the SDK's
/// `UserProgress`, field for field (docs/API.md has how each field is computed).
public struct UserProgress: Codable, Sendable, Equatable {
    public var userId: String
    /// The language (BCP 47 tag) the progress is filed under.
    public var language: String
    public var totalXP: Int
    /// XP of the current UTC ISO week.
    public var weeklyXP: Int
    /// 1 + ⌊√(totalXP / 100)⌋.
    public var currentLevel: Int
    public var currentStreak: Int
    public var longestStreak: Int
    /// UTC day of the last session, `YYYY-MM-DD`; nil before the first.
    public var lastActivityDate: String?
    public var totalSessions: Int
    public var soloSessions: Int
    public var multiplayerSessions: Int
    public var totalMinutesPlayed: Int
    public var successfulRepairs: Int
    public var helpGiven: Int
    public var teamWins: Int
    /// Whole minutes played on the current UTC day.
    public var todayMinutes: Int
    /// The daily goal from the profile.
    public var dailyGoalMinutes: Int
    public var totalWordsLearned: Int
    public var wordsDueForReview: Int
    /// 0–100.
    public var vocabularyMasteryPercent: Int
    public var estimatedCEFR: CEFRLevel
    /// 0–100.
    public var cefrProgressPercent: Int
}
