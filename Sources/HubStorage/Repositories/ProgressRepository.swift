/// Learner progress per language, updated when sessions end.
public protocol ProgressRepository: Sendable {
    /// Every language the user has progress in, sorted by language code, as stored after the
    /// user's last session.
    func progress(userId: String) async throws -> [LanguageProgress]

    /// The same as of `now` (epoch ms, UTC): `weeklyXP` is 0 when the last session was in an
    /// earlier ISO week, `currentStreak` is 0 when it was before yesterday.
    func progress(userId: String, now: Int64) async throws -> [LanguageProgress]
}
