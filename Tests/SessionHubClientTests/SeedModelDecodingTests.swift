import Foundation
import HubDomain
import SessionHubClient
import Testing

@Suite("The client's seed models decode the hub's JSON strictly")
struct SeedModelDecodingTests {
    static let progress = """
        {"cefrProgressPercent":1,"currentLevel":1,"currentStreak":1,"dailyGoalMinutes":15,"estimatedCEFR":"A1","helpGiven":0,"language":"fr","lastActivityDate":"2026-11-23","longestStreak":1,"multiplayerSessions":0,"soloSessions":1,"successfulRepairs":0,"teamWins":0,"todayMinutes":3,"totalMinutesPlayed":3,"totalSessions":1,"totalWordsLearned":9,"totalXP":48,"userId":"ana","vocabularyMasteryPercent":0,"weeklyXP":48,"wordsDueForReview":0}
        """
    static let profile = """
        {"createdAt":1795435964537,"currentTargetLanguage":"fr","dailyGoalMinutes":15,"displayName":"Ana","id":"ana","interests":["TRAVEL","FOOD"],"isPremium":false,"lastActiveAt":1795435970112,"learningGoals":["TRAVEL","CONNECT_WITH_PEOPLE"],"nativeLanguage":"en-US","onboardingCompleted":true,"showTranslations":"ON_TAP","targetLanguages":[{"code":"fr","proficiencyLevel":"A2","startedAt":1795435964537}],"voiceSpeed":"NORMAL"}
        """

    @Test func docExamplesDecode() throws {
        let progress = try JSONDecoder().decode(UserProgress.self, from: Data(Self.progress.utf8))
        #expect(progress.currentLevel == 1)
        #expect(progress.estimatedCEFR == .a1)
        #expect(progress.totalWordsLearned == 9)
        let profile = try JSONDecoder().decode(UserProfile.self, from: Data(Self.profile.utf8))
        #expect(profile.interests == [.travel, .food])
        #expect(profile.learningGoals == [.travel, .connectWithPeople])
        #expect(profile.targetLanguages == [TargetLanguage(code: "fr", proficiencyLevel: .a2, startedAt: 1_795_435_964_537)])
        #expect(profile.voiceSpeed == .normal && profile.showTranslations == .onTap)
    }

    @Test(arguments: ["currentLevel", "todayMinutes", "estimatedCEFR", "wordsDueForReview", "cefrProgressPercent"])
    func aMissingProgressFieldFails(_ key: String) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(Self.progress.utf8)) as? [String: Any])
        object[key] = nil
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(UserProgress.self, from: data) }
    }

    @Test func anInterestThisVersionDoesNotKnowIsLeftOutAndAMissingCurrentLanguageFails() throws {
        let unknown = Self.profile.replacingOccurrences(of: "\"FOOD\"", with: "\"KNITTING\"")
        let decoded = try JSONDecoder().decode(UserProfile.self, from: Data(unknown.utf8))
        let known = try JSONDecoder().decode(UserProfile.self, from: Data(Self.profile.utf8))
        #expect(decoded.interests == known.interests.filter { $0 != .food })
        let speed = Self.profile.replacingOccurrences(of: "\"NORMAL\"", with: "\"WARP\"")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(UserProfile.self, from: Data(speed.utf8)) }
        let missing = Self.profile.replacingOccurrences(of: "\"currentTargetLanguage\":\"fr\",", with: "")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(UserProfile.self, from: Data(missing.utf8)) }
    }
}
