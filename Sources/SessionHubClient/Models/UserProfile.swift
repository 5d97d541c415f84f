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

extension UserProfile {
    private enum CodingKeys: String, CodingKey {
        case id, displayName, nativeLanguage, targetLanguages, currentTargetLanguage, interests, learningGoals,
             dailyGoalMinutes, voiceSpeed, showTranslations, isPremium, onboardingCompleted, createdAt, lastActiveAt
    }

    /// Decodes every field strictly but `interests` and `learningGoals`, whose values this
    /// version of the library does not know are left out: a hub that adds a value to those
    /// lists does not break apps built before it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        displayName = try c.decode(String.self, forKey: .displayName)
        nativeLanguage = try c.decode(String.self, forKey: .nativeLanguage)
        targetLanguages = try c.decode([TargetLanguage].self, forKey: .targetLanguages)
        currentTargetLanguage = try c.decode(String.self, forKey: .currentTargetLanguage)
        interests = try c.decode([String].self, forKey: .interests).compactMap(Interest.init(rawValue:))
        learningGoals = try c.decode([String].self, forKey: .learningGoals).compactMap(LearningGoal.init(rawValue:))
        dailyGoalMinutes = try c.decode(Int.self, forKey: .dailyGoalMinutes)
        voiceSpeed = try c.decode(VoiceSpeed.self, forKey: .voiceSpeed)
        showTranslations = try c.decode(ShowTranslations.self, forKey: .showTranslations)
        isPremium = try c.decode(Bool.self, forKey: .isPremium)
        onboardingCompleted = try c.decode(Bool.self, forKey: .onboardingCompleted)
        createdAt = try c.decode(Int64.self, forKey: .createdAt)
        lastActiveAt = try c.decode(Int64.self, forKey: .lastActiveAt)
    }
}
