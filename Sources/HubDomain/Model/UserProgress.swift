/// A learner's progress in one language, field for field the SDK's `UserProgress` (the 22
/// fields of docs/API.md, "`GET /api/progress`"). Streaks, weekly XP and today's minutes count
/// UTC days and ISO weeks; the vocabulary figures come from the learner's per-word SM-2 state
/// (``WordReview``).
public struct UserProgress: Codable, Sendable, Equatable {
    /// The learner's user id.
    public var userId: String
    /// The language code the progress is filed under.
    public var language: String
    /// Every session's `xpEarned` in this language.
    public var totalXP: Int
    /// XP earned in the current UTC ISO week (Monday first).
    public var weeklyXP: Int
    /// 1 + ⌊√(totalXP / 100)⌋.
    public var currentLevel: Int
    /// Consecutive UTC days with a session, in any language; 0 when the last was before yesterday.
    public var currentStreak: Int
    /// The longest run of consecutive UTC days with a session, in any language.
    public var longestStreak: Int
    /// UTC day of the last session, `YYYY-MM-DD`, or nil.
    public var lastActivityDate: String?
    /// Sessions counted in this language: ``soloSessions`` plus ``multiplayerSessions``.
    public var totalSessions: Int
    /// Of those, SOLO sessions.
    public var soloSessions: Int
    /// Of those, shared (HOST/CLIENT) sessions.
    public var multiplayerSessions: Int
    /// Whole minutes played, each session's duration truncated.
    public var totalMinutesPlayed: Int
    /// Recasts of the learner's lines that they accepted, summed over sessions.
    public var successfulRepairs: Int
    /// The learner's recasts that their speaker accepted, summed over sessions.
    public var helpGiven: Int
    /// Shared sessions that reached their goal.
    public var teamWins: Int
    /// Whole minutes played on the current UTC day (⌊seconds of today's sessions / 60⌋).
    public var todayMinutes: Int
    /// The learner's daily goal, from their profile.
    public var dailyGoalMinutes: Int
    /// Words with at least one successful review since their last failure (SM-2 repetitions ≥ 1).
    public var totalWordsLearned: Int
    /// Words whose next review is due now (`nextReviewAt` ≤ now).
    public var wordsDueForReview: Int
    /// 0–100: the share of the words met whose SM-2 interval reached 21 days, rounded down.
    public var vocabularyMasteryPercent: Int
    /// The CEFR level the learned words reach (``CEFREstimate``).
    public var estimatedCEFR: CEFRLevel
    /// 0–100: the way from `estimatedCEFR`'s threshold to the next level's (100 at C2).
    public var cefrProgressPercent: Int

    /// Zero progress, with the learner's daily goal.
    public static func empty(userId: String, language: String, dailyGoalMinutes: Int) -> UserProgress {
        UserProgress(userId: userId, language: language, totalXP: 0, weeklyXP: 0, currentLevel: 1, currentStreak: 0,
                     longestStreak: 0, lastActivityDate: nil, totalSessions: 0, soloSessions: 0,
                     multiplayerSessions: 0, totalMinutesPlayed: 0, successfulRepairs: 0, helpGiven: 0, teamWins: 0,
                     dailyGoalMinutes: dailyGoalMinutes)
    }

    /// Creates a record; the fields after `teamWins` default to a learner without vocabulary
    /// and the default daily goal.
    public init(userId: String, language: String, totalXP: Int, weeklyXP: Int, currentLevel: Int, currentStreak: Int,
                longestStreak: Int, lastActivityDate: String?, totalSessions: Int, soloSessions: Int,
                multiplayerSessions: Int, totalMinutesPlayed: Int, successfulRepairs: Int, helpGiven: Int, teamWins: Int,
                todayMinutes: Int = 0, dailyGoalMinutes: Int,
                totalWordsLearned: Int = 0, wordsDueForReview: Int = 0, vocabularyMasteryPercent: Int = 0,
                estimatedCEFR: CEFRLevel = .a1, cefrProgressPercent: Int = 0) {
        self.userId = userId
        self.language = language
        self.totalXP = totalXP
        self.weeklyXP = weeklyXP
        self.currentLevel = currentLevel
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
        self.todayMinutes = todayMinutes
        self.dailyGoalMinutes = dailyGoalMinutes
        self.totalWordsLearned = totalWordsLearned
        self.wordsDueForReview = wordsDueForReview
        self.vocabularyMasteryPercent = vocabularyMasteryPercent
        self.estimatedCEFR = estimatedCEFR
        self.cefrProgressPercent = cefrProgressPercent
    }
}
