import HubDomain
import HubStorage

/// The body of `PUT /api/profile`: any profile field but `id`, `isPremium`, `createdAt` and
/// `lastActiveAt`; absent fields keep their value. Validated before anything is stored:
/// languages are BCP 47 tags (stored in canonical case), `interests` and `learningGoals` values
/// of ``Interest`` and ``LearningGoal``.
struct ProfileUpdate: Decodable {
    var displayName: String?
    var nativeLanguage: String?
    var targetLanguages: [TargetLanguageUpdate]?
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
            guard (1...UserProfile.maxDisplayNameLength).contains(displayName.count) else {
                throw .badRequest("displayName must be 1 to \(UserProfile.maxDisplayNameLength) characters")
            }
            updated.displayName = displayName
        }
        if let nativeLanguage {
            updated.nativeLanguage = try Self.languageTag(nativeLanguage, field: "nativeLanguage")
        }
        if let targetLanguages {
            guard targetLanguages.count <= 10 else { throw .badRequest("at most 10 targetLanguages") }
            var checked: [TargetLanguage] = []
            for language in targetLanguages {
                let code = try Self.languageTag(language.code, field: "targetLanguages[].code")
                guard let level = CEFRLevel(rawValue: language.proficiencyLevel) else {
                    throw .badRequest("targetLanguages[].proficiencyLevel must be A1, A2, B1, B2, C1 or C2")
                }
                checked.append(TargetLanguage(code: code, proficiencyLevel: level, startedAt: language.startedAt))
            }
            updated.targetLanguages = checked
        }
        if let currentTargetLanguage {
            updated.currentTargetLanguage = try Self.languageTag(currentTargetLanguage, field: "currentTargetLanguage")
        } else if profile.currentTargetLanguage == profile.nativeLanguage
                    || (targetLanguages != nil && !updated.targetLanguages.contains { $0.code == updated.currentTargetLanguage }) {
            // Not chosen (still the native language), or no longer one of the target languages:
            // it follows them (the first one, else the native language).
            updated.currentTargetLanguage = UserProfile.defaultCurrentTargetLanguage(
                targetLanguages: updated.targetLanguages, nativeLanguage: updated.nativeLanguage)
        }
        if let interests {
            updated.interests = try Self.enumValues(interests, field: "interests", as: Interest.self)
        }
        if let learningGoals {
            updated.learningGoals = try Self.enumValues(learningGoals, field: "learningGoals", as: LearningGoal.self)
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

    /// `tag` in canonical case when it is a well-formed BCP 47 tag (``LanguageTag``).
    private static func languageTag(_ tag: String, field: String) throws(APIError) -> String {
        guard let canonical = LanguageTag.canonical(tag) else {
            throw .badRequest("\(field) must be a BCP 47 language tag such as en, en-US, pt-BR or zh-Hans (at most \(LanguageTag.maxLength) characters)")
        }
        return canonical
    }

    /// The values of an enum list, without duplicates; an unknown one is refused with the list
    /// of accepted values.
    private static func enumValues<Value: RawRepresentable & CaseIterable & Hashable>(
        _ texts: [String], field: String, as _: Value.Type) throws(APIError) -> [Value] where Value.RawValue == String {
        var values: [Value] = []
        for text in texts {
            guard let value = Value(rawValue: text) else {
                let accepted = Value.allCases.map(\.rawValue).joined(separator: ", ")
                throw .badRequest("\(field): unknown value \"\(text.prefix(50))\"; accepted: \(accepted)")
            }
            if !values.contains(value) { values.append(value) }
        }
        return values
    }
}

