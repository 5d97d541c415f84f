import HubStorage

/// The body of `PUT /api/profile`: any profile field but `id`, `isPremium`, `createdAt` and
/// `lastActiveAt`; absent fields keep their value. Validated before anything is stored.
struct ProfileUpdate: Decodable {
    var displayName: String?
    var nativeLanguage: String?
    var targetLanguages: [TargetLanguage]?
    var currentTargetLanguage: String?
    var interests: [String]?
    var learningGoals: [String]?
    var dailyGoalMinutes: Int?
    var voiceSpeed: VoiceSpeed?
    var showTranslations: ShowTranslations?
    var onboardingCompleted: Bool?
    /// Present only to be refused with a clear message.
    var isPremium: Bool?

    /// Applies the update, or says which field is wrong.
    func applied(to profile: UserProfile, now: Int64) throws(APIError) -> UserProfile {
        if isPremium != nil { throw .init(.forbidden, "forbidden", "isPremium is changed only by the operator API") }
        var updated = profile
        if let displayName {
            guard (1...80).contains(displayName.count) else { throw .badRequest("displayName must be 1 to 80 characters") }
            updated.displayName = displayName
        }
        if let nativeLanguage {
            guard Self.isLanguageCode(nativeLanguage) else { throw .badRequest("nativeLanguage must be a two-letter ISO 639-1 code") }
            updated.nativeLanguage = nativeLanguage
        }
        if let targetLanguages {
            guard targetLanguages.count <= 10 else { throw .badRequest("at most 10 targetLanguages") }
            for language in targetLanguages {
                guard Self.isLanguageCode(language.code) else { throw .badRequest("targetLanguages[].code must be a two-letter ISO 639-1 code") }
                guard ["A1", "A2", "B1", "B2", "C1", "C2"].contains(language.proficiencyLevel) else {
                    throw .badRequest("targetLanguages[].proficiencyLevel must be A1, A2, B1, B2, C1 or C2")
                }
            }
            updated.targetLanguages = targetLanguages
        }
        if let currentTargetLanguage {
            guard Self.isLanguageCode(currentTargetLanguage) else { throw .badRequest("currentTargetLanguage must be a two-letter ISO 639-1 code") }
            updated.currentTargetLanguage = currentTargetLanguage
        }
        if let interests {
            guard interests.count <= 20, interests.allSatisfy({ (1...50).contains($0.count) }) else {
                throw .badRequest("interests: at most 20, each 1 to 50 characters")
            }
            updated.interests = interests
        }
        if let learningGoals {
            guard learningGoals.count <= 20, learningGoals.allSatisfy({ (1...100).contains($0.count) }) else {
                throw .badRequest("learningGoals: at most 20, each 1 to 100 characters")
            }
            updated.learningGoals = learningGoals
        }
        if let dailyGoalMinutes {
            guard (1...600).contains(dailyGoalMinutes) else { throw .badRequest("dailyGoalMinutes must be 1 to 600") }
            updated.dailyGoalMinutes = dailyGoalMinutes
        }
        if let voiceSpeed { updated.voiceSpeed = voiceSpeed }
        if let showTranslations { updated.showTranslations = showTranslations }
        if let onboardingCompleted { updated.onboardingCompleted = onboardingCompleted }
        updated.lastActiveAt = now
        return updated
    }

    /// Two lowercase ASCII letters (ISO 639-1).
    static func isLanguageCode(_ code: String) -> Bool {
        code.utf8.count == 2 && code.utf8.allSatisfy { $0 >= 97 && $0 <= 122 }
    }
}
