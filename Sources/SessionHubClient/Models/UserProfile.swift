import HubDomain

/// A learner's profile as `GET /api/profile` (and the WebSocket `profile` reply) sends it: the
/// SDK's `UserProfile`, field for field.
public struct UserProfile: Codable, Sendable, Equatable {
    public var id: String
    public var displayName: String
    /// BCP 47 language tag.
    public var nativeLanguage: String
    public var targetLanguages: [TargetLanguage]
    /// BCP 47 tag; always present (docs/API.md says how it defaults).
    public var currentTargetLanguage: String
    public var interests: [Interest]
    public var learningGoals: [LearningGoal]
    public var dailyGoalMinutes: Int
    public var voiceSpeed: VoiceSpeed
    public var showTranslations: ShowTranslations
    public var isPremium: Bool
    public var onboardingCompleted: Bool
    /// Epoch ms.
    public var createdAt: Int64
    /// Epoch ms.
    public var lastActiveAt: Int64
}
