import HubDomain
import Foundation
import HubStorage
import Testing

@Suite("Storage models")
struct UserProfileCodingTests {
    @Test("UserProfile encodes the SDK's field names and enum values")
    func sdkFieldNames() throws {
        let profile = UserProfile.initial(id: "u1", displayName: "Ana", now: 1_000)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(profile)) as? [String: Any])
        for key in ["id", "displayName", "nativeLanguage", "targetLanguages", "interests", "learningGoals",
                    "dailyGoalMinutes", "voiceSpeed", "showTranslations", "isPremium", "onboardingCompleted",
                    "createdAt", "lastActiveAt"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["voiceSpeed"] as? String == "NORMAL")
        #expect(object["showTranslations"] as? String == "ALWAYS")
        #expect(object["isPremium"] as? Bool == false)
    }
}
