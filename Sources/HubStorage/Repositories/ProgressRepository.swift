import HubDomain

/// Learner progress per language, updated when sessions end.
public protocol ProgressRepository: Sendable {
    /// Every language the user has progress in, sorted by language code, as stored after the
    /// user's last session.
    func progress(userId: String) async throws -> [UserProgress]

    /// The same as of `now` (epoch ms, UTC): `weeklyXP` is 0 when the last session was in an
    /// earlier ISO week, `todayMinutes` is 0 when it was on an earlier day, `currentStreak` is 0
    /// when it was before yesterday, and `wordsDueForReview` counts words due at `now`.
    func progress(userId: String, now: Int64) async throws -> [UserProgress]

    /// The user's SM-2 state of every word met in `language`, by word.
    func wordReviews(userId: String, language: String) async throws -> [String: WordReview]
}
