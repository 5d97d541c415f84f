import HubDomain

extension UserProfile {
    /// A profile read back from storage: a missing current target language gets its default, and
    /// interests and learning goals that are not (or no longer) enum values are dropped
    /// (``StoredEnumValues``), so an old row never makes a profile unreadable.
    package static func stored(id: String, displayName: String, nativeLanguage: String, targetLanguages: [TargetLanguage],
                               currentTargetLanguage: String?, interests: [String], learningGoals: [String],
                               dailyGoalMinutes: Int, voiceSpeed: VoiceSpeed, showTranslations: ShowTranslations,
                               isPremium: Bool, onboardingCompleted: Bool, createdAt: Int64, lastActiveAt: Int64) -> UserProfile {
        UserProfile(id: id, displayName: displayName, nativeLanguage: nativeLanguage, targetLanguages: targetLanguages,
                    currentTargetLanguage: currentTargetLanguage
                        ?? defaultCurrentTargetLanguage(targetLanguages: targetLanguages, nativeLanguage: nativeLanguage),
                    interests: StoredEnumValues.lenient(interests, as: Interest.self),
                    learningGoals: StoredEnumValues.lenient(learningGoals, as: LearningGoal.self),
                    dailyGoalMinutes: dailyGoalMinutes, voiceSpeed: voiceSpeed, showTranslations: showTranslations,
                    isPremium: isPremium, onboardingCompleted: onboardingCompleted, createdAt: createdAt,
                    lastActiveAt: lastActiveAt)
    }
}
