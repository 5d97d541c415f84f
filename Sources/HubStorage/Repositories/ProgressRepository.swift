/// Learner progress per language, updated when sessions end.
public protocol ProgressRepository: Sendable {
    /// Every language the user has progress in, sorted by language code.
    func progress(userId: String) async throws -> [LanguageProgress]
}
