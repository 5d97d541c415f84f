/// A learner's profile, field for field the SDK's `UserProfile` (JSON names and enum values match).
public struct UserProfile: Codable, Sendable, Equatable {
    public var id: String
    public var displayName: String
    /// ISO 639-1 code of the learner's own language.
    public var nativeLanguage: String
    public var targetLanguages: [TargetLanguage]
    /// ISO 639-1 code of the language practised now, if any.
    public var currentTargetLanguage: String?
    public var interests: [String]
    public var learningGoals: [String]
    public var dailyGoalMinutes: Int
    public var voiceSpeed: VoiceSpeed
    public var showTranslations: ShowTranslations
    /// Premium subscriber (history is a premium feature). Only the operator API changes it.
    public var isPremium: Bool
    public var onboardingCompleted: Bool
    /// Epoch ms.
    public var createdAt: Int64
    /// Epoch ms.
    public var lastActiveAt: Int64

    /// The profile a user gets on first contact.
    public static func initial(id: String, displayName: String, now: Int64) -> UserProfile {
        UserProfile(id: id, displayName: displayName, nativeLanguage: "en", targetLanguages: [],
                    currentTargetLanguage: nil, interests: [], learningGoals: [], dailyGoalMinutes: 10,
                    voiceSpeed: .normal, showTranslations: .always, isPremium: false,
                    onboardingCompleted: false, createdAt: now, lastActiveAt: now)
    }

    /// Creates a profile.
    public init(id: String, displayName: String, nativeLanguage: String, targetLanguages: [TargetLanguage],
                currentTargetLanguage: String?, interests: [String], learningGoals: [String], dailyGoalMinutes: Int,
                voiceSpeed: VoiceSpeed, showTranslations: ShowTranslations, isPremium: Bool,
                onboardingCompleted: Bool, createdAt: Int64, lastActiveAt: Int64) {
        self.id = id
        self.displayName = displayName
        self.nativeLanguage = nativeLanguage
        self.targetLanguages = targetLanguages
        self.currentTargetLanguage = currentTargetLanguage
        self.interests = interests
        self.learningGoals = learningGoals
        self.dailyGoalMinutes = dailyGoalMinutes
        self.voiceSpeed = voiceSpeed
        self.showTranslations = showTranslations
        self.isPremium = isPremium
        self.onboardingCompleted = onboardingCompleted
        self.createdAt = createdAt
        self.lastActiveAt = lastActiveAt
    }
}

/// A language a learner practises.
public struct TargetLanguage: Codable, Sendable, Equatable {
    public var code: String
    /// CEFR level: A1 ... C2.
    public var proficiencyLevel: String
    /// Epoch ms.
    public var startedAt: Int64

    /// Creates an entry.
    public init(code: String, proficiencyLevel: String, startedAt: Int64) {
        self.code = code
        self.proficiencyLevel = proficiencyLevel
        self.startedAt = startedAt
    }
}

/// The SDK's `VoiceSpeed`.
public enum VoiceSpeed: String, Codable, Sendable, CaseIterable {
    case slow = "SLOW", normal = "NORMAL", fast = "FAST"
}

/// The SDK's `ShowTranslations`.
public enum ShowTranslations: String, Codable, Sendable, CaseIterable {
    case always = "ALWAYS", onTap = "ON_TAP", never = "NEVER"
}
