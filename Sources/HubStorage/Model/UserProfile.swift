import HubDomain

/// A learner's profile, field for field the SDK's `UserProfile` (JSON names and enum values match).
public struct UserProfile: Codable, Sendable, Equatable {
    public var id: String
    public var displayName: String
    /// BCP 47 language tag of the learner's own language (`en`, `en-US`, `zh-Hans`).
    public var nativeLanguage: String
    public var targetLanguages: [TargetLanguage]
    /// BCP 47 tag of the language practised now. Always present: the one the learner chose,
    /// else the first of ``targetLanguages``, else ``nativeLanguage`` (a learner who has not
    /// chosen a language yet; see ``progressLanguage(scenarioLanguage:)``).
    public var currentTargetLanguage: String
    public var interests: [Interest]
    public var learningGoals: [LearningGoal]
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

    /// The daily goal of a profile nobody changed.
    public static let defaultDailyGoalMinutes = 10
    /// The native language of a profile nobody changed.
    public static let defaultNativeLanguage = "en"

    /// The profile a user gets on first contact.
    public static func initial(id: String, displayName: String, now: Int64) -> UserProfile {
        UserProfile(id: id, displayName: displayName, nativeLanguage: defaultNativeLanguage, targetLanguages: [],
                    currentTargetLanguage: defaultNativeLanguage, interests: [], learningGoals: [],
                    dailyGoalMinutes: defaultDailyGoalMinutes,
                    voiceSpeed: .normal, showTranslations: .always, isPremium: false,
                    onboardingCompleted: false, createdAt: now, lastActiveAt: now)
    }

    /// Creates a profile.
    public init(id: String, displayName: String, nativeLanguage: String, targetLanguages: [TargetLanguage],
                currentTargetLanguage: String, interests: [Interest], learningGoals: [LearningGoal], dailyGoalMinutes: Int,
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

    /// The language a finished session's progress, vocabulary and history are filed under:
    /// ``currentTargetLanguage``, unless it is the learner's ``nativeLanguage`` (nobody practises
    /// their own language: a profile that has not chosen a target yet) — then the scenario's.
    public func progressLanguage(scenarioLanguage: String) -> String {
        currentTargetLanguage == nativeLanguage ? scenarioLanguage : currentTargetLanguage
    }

    /// ``currentTargetLanguage`` when none was chosen: the first target language, else the
    /// native language.
    public static func defaultCurrentTargetLanguage(targetLanguages: [TargetLanguage], nativeLanguage: String) -> String {
        targetLanguages.first?.code ?? nativeLanguage
    }

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

/// A language a learner practises.
public struct TargetLanguage: Codable, Sendable, Equatable {
    /// BCP 47 language tag.
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
