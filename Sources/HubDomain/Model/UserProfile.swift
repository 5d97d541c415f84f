/// A learner's profile, field for field the SDK's `UserProfile` (JSON names and enum values match).
public struct UserProfile: Codable, Sendable, Equatable {
    /// The user id (the token's `sub`).
    public var id: String
    /// The name shown to others, 1 to ``maxDisplayNameLength`` characters.
    public var displayName: String
    /// BCP 47 language tag of the learner's own language (`en`, `en-US`, `zh-Hans`).
    public var nativeLanguage: String
    /// The languages the learner practises (at most 10).
    public var targetLanguages: [TargetLanguage]
    /// BCP 47 tag of the language practised now. Always present: the one the learner chose,
    /// else the first of ``targetLanguages``, else ``nativeLanguage`` (a learner who has not
    /// chosen a language yet; see ``progressLanguage(scenarioLanguage:)``).
    public var currentTargetLanguage: String
    /// Topics the learner likes.
    public var interests: [Interest]
    /// Why the learner learns.
    public var learningGoals: [LearningGoal]
    /// Minutes of practice a day the learner aims for (1 to 600).
    public var dailyGoalMinutes: Int
    /// The app's voice speed setting; the hub only stores it.
    public var voiceSpeed: VoiceSpeed
    /// The app's setting for showing translations; the hub only stores it.
    public var showTranslations: ShowTranslations
    /// Premium subscriber (history is a premium feature). Only the operator API changes it.
    public var isPremium: Bool
    /// Whether the learner finished the app's onboarding; the hub only stores it.
    public var onboardingCompleted: Bool
    /// Epoch ms.
    public var createdAt: Int64
    /// Epoch ms.
    public var lastActiveAt: Int64

    /// The longest display name, in characters: a profile's (`PUT /api/profile`) and the name a
    /// development sign-in puts in its token.
    public static let maxDisplayNameLength = 80
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
