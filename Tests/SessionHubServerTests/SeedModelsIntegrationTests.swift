import Foundation
import HubDomain
import HubStorage
import SessionHubServer
import Synchronization
import Testing

/// The seed's `UserProgress` and `UserProfile`, written here from the seed's field tables (not
/// from the hub's types), decode the JSON a real hub sends after a real session. Strict: every
/// field is required, every enum is closed.
@Suite("Seed models decode the hub's real JSON", .timeLimit(.minutes(2)))
struct SeedModelsIntegrationTests {
    // MARK: The seed's tables

    enum SeedCEFR: String, Decodable { case A1, A2, B1, B2, C1, C2 }
    enum SeedVoiceSpeed: String, Decodable { case SLOW, NORMAL, FAST }
    enum SeedShowTranslations: String, Decodable { case ALWAYS, ON_TAP, NEVER }
    enum SeedInterest: String, Decodable {
        case TRAVEL, FOOD, BUSINESS, CULTURE, MUSIC, SPORTS, MOVIES, TECHNOLOGY, SCIENCE, ART, LITERATURE, HISTORY
        case NATURE, GAMING, FAMILY, HEALTH, FASHION, NEWS
    }
    enum SeedLearningGoal: String, Decodable {
        case TRAVEL, CAREER, EDUCATION, CULTURE, FAMILY, RELOCATION, EXAM, HOBBY, CONNECT_WITH_PEOPLE
    }

    struct SeedUserProgress: Decodable {
        let userId: String
        let language: String
        let totalXP: Int
        let weeklyXP: Int
        let currentLevel: Int
        let currentStreak: Int
        let longestStreak: Int
        let lastActivityDate: String
        let totalSessions: Int
        let soloSessions: Int
        let multiplayerSessions: Int
        let totalMinutesPlayed: Int
        let successfulRepairs: Int
        let helpGiven: Int
        let teamWins: Int
        let todayMinutes: Int
        let dailyGoalMinutes: Int
        let totalWordsLearned: Int
        let wordsDueForReview: Int
        let vocabularyMasteryPercent: Int
        let estimatedCEFR: SeedCEFR
        let cefrProgressPercent: Int
    }

    struct SeedTargetLanguage: Decodable {
        let code: String
        let proficiencyLevel: SeedCEFR
        let startedAt: Int64
    }

    struct SeedUserProfile: Decodable {
        let id: String
        let displayName: String
        let nativeLanguage: String
        let targetLanguages: [SeedTargetLanguage]
        let currentTargetLanguage: String
        let interests: [SeedInterest]
        let learningGoals: [SeedLearningGoal]
        let dailyGoalMinutes: Int
        let voiceSpeed: SeedVoiceSpeed
        let showTranslations: SeedShowTranslations
        let isPremium: Bool
        let onboardingCompleted: Bool
        let createdAt: Int64
        let lastActiveAt: Int64
    }

    struct ProgressBody: Decodable { let progress: [SeedUserProgress] }

    /// Real time plus an offset the test moves forward (so a session lasts minutes).
    final class ShiftedClock: HubClock {
        private let offset = Mutex<Int64>(0)
        func now() -> Int64 { SystemHubClock().now() + offset.withLock { $0 } }
        func advance(seconds: Int64) { offset.withLock { $0 += seconds * 1000 } }
    }

    @Test func progressAndProfileAfterAPlayedSessionDecodeIntoTheSeedTypes() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-seed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let persistence = try HubPersistence.sqlite(path: dir + "/sessionhub.sqlite", logger: .init(label: "test"))
        let stores = try #require(persistence.stores)
        let clock = ShiftedClock()
        let configuration = HubServerConfiguration(port: 0, threads: 2, secret: HubTestServer.secret)
        let server = try HubServer(configuration: configuration, clock: clock, persistence: persistence)
        let port = try await server.start()
        do {
            let anaToken = HubTestServer.token("ana"), benToken = HubTestServer.token("ben")
            // The seed's own example values.
            let update: [String: Any] = [
                "nativeLanguage": "en-US", "currentTargetLanguage": "fr",
                "targetLanguages": [["code": "fr", "proficiencyLevel": "A2", "startedAt": 1_795_435_964_537],
                                    ["code": "pt-BR", "proficiencyLevel": "A1", "startedAt": 1_795_435_964_537]],
                "interests": ["TRAVEL", "FOOD"], "learningGoals": ["TRAVEL", "CONNECT_WITH_PEOPLE"], "dailyGoalMinutes": 15,
            ]
            let saved = try await HTTPTestClient.request("PUT", port: port, "/api/profile", token: anaToken, body: update)
            #expect(saved.status == 200, "\(String(decoding: saved.body, as: UTF8.self))")

            let ana = try await HubTestClient.connect(port: port, token: anaToken)
            _ = try #require(await ana.expect("welcome"))
            let ben = try await HubTestClient.connect(port: port, token: benToken)
            _ = try #require(await ben.expect("welcome"))
            ana.send(["type": "host", "id": "h", "scenarioId": "hotel-check-in"])
            let code = try #require(await ana.expect("joined")?.object("session")?.string("joinCode"))
            ben.send(["type": "join", "id": "j", "code": code])
            _ = try #require(await ben.expect("joined"))
            ana.send(["type": "say", "id": "a1", "textNative": "Bonsoir, bienvenue à l'hôtel.", "textTranslated": ""])
            _ = try #require(await ben.expect("line"))
            #expect(await ana.expect("line")?.string("ref") == "a1")  // her own line, acknowledged
            ben.send(["type": "say", "id": "b1", "textNative": "Bonsoir, je ai une réservation.", "textTranslated": ""])
            #expect(await ana.expect("line")?.object("line")?.string("speakerId") == "ben")
            ana.send(["type": "recast", "id": "r", "lineId": "l2", "correctedText": "Bonsoir, j'ai une réservation.",
                      "issueTypes": ["grammar"]])
            _ = try #require(await ben.expect("recast"))
            ben.send(["type": "acceptRecast", "id": "acc", "recastId": "r1"])
            _ = try #require(await ana.expect("recastAccepted"))
            clock.advance(seconds: 150)
            ana.send(["type": "end", "id": "e"])
            _ = try #require(await ana.expect("ended"))
            _ = try #require(await ben.expect("ended"))

            let decoder = JSONDecoder()
            let benProgress = try await HTTPTestClient.request("GET", port: port, "/api/progress", token: benToken)
            #expect(benProgress.status == 200)
            let benEntry = try #require(try decoder.decode(ProgressBody.self, from: benProgress.body).progress.first)
            #expect(benEntry.language == "fr")
            #expect(benEntry.currentLevel >= 1)
            #expect(benEntry.multiplayerSessions == 1)
            #expect(benEntry.todayMinutes == 2)
            #expect(benEntry.totalMinutesPlayed == 2)
            #expect(benEntry.dailyGoalMinutes == 10)
            #expect(benEntry.totalWordsLearned >= 6, "bonsoir, une, réservation, bienvenue, à, l'hôtel")
            #expect(benEntry.wordsDueForReview == 1, "j'ai, brought in by the recast")
            #expect(benEntry.vocabularyMasteryPercent == 0)
            #expect(benEntry.estimatedCEFR == .A1)
            #expect(benEntry.cefrProgressPercent == benEntry.totalWordsLearned * 100 / 500)
            let benWords = try await stores.progress.wordReviews(userId: "ben", language: "fr")
            let corrected = try #require(benWords["j'ai"])
            #expect(corrected.easeFactor < WordReview.initialEaseFactor)
            #expect(corrected.repetitions == 0)
            #expect(benWords["je"] == nil && benWords["ai"] == nil, "words the recast took out get no credit")
            #expect((benWords["réservation"]?.repetitions ?? 0) == 1)

            let anaProgress = try await HTTPTestClient.request("GET", port: port, "/api/progress", token: anaToken)
            let anaEntry = try #require(try decoder.decode(ProgressBody.self, from: anaProgress.body).progress.first)
            #expect(anaEntry.language == "fr")
            #expect(anaEntry.dailyGoalMinutes == 15)
            #expect(anaEntry.wordsDueForReview == 0)
            #expect(anaEntry.totalWordsLearned > 0)

            let profile = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: anaToken)
            let seedProfile = try decoder.decode(SeedUserProfile.self, from: profile.body)
            #expect(seedProfile.nativeLanguage == "en-US")
            #expect(seedProfile.targetLanguages.map(\.code) == ["fr", "pt-BR"])
            #expect(seedProfile.currentTargetLanguage == "fr")
            #expect(seedProfile.interests == [.TRAVEL, .FOOD])
            #expect(seedProfile.learningGoals == [.TRAVEL, .CONNECT_WITH_PEOPLE])
            let fresh = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: HubTestServer.token("cleo"))
            #expect(try decoder.decode(SeedUserProfile.self, from: fresh.body).currentTargetLanguage == "en")

            // The client library's own types decode the same bodies.
            let decoded = try ClientModels.decode(progress: benProgress.body, profile: profile.body)
            #expect(decoded.wordsDueForReview == 1)
            #expect(decoded.interests == ["TRAVEL", "FOOD"])
            // … and the client's own calls fetch them over HTTP.
            let fetched = try await ClientModels.fetch(port: port, token: benToken)
            #expect(fetched == ClientModels.Figures(language: "fr", wordsDueForReview: 1,
                                                    totalWordsLearned: benEntry.totalWordsLearned, todayMinutes: 2,
                                                    estimatedCEFR: "A1", interests: [], currentTargetLanguage: "en"))
            #expect(try await ClientModels.fetch(port: port, token: anaToken).interests == ["TRAVEL", "FOOD"])
            #expect(await ClientModels.profileRefusal(port: port, token: "not-a-token") == "token_malformed")
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func profileLanguagesAreBCP47TagsAndEnumsAreClosed() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-seed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let persistence = try HubPersistence.sqlite(path: dir + "/sessionhub.sqlite", logger: .init(label: "test"))
        try await HubTestServer.with(persistence: persistence) { port, _ in
            let token = HubTestServer.token("ana")
            func put(_ body: [String: Any]) async throws -> HTTPTestClient.Reply {
                try await HTTPTestClient.request("PUT", port: port, "/api/profile", token: token, body: body)
            }
            for tag in ["en-US", "es-MX", "pt-BR", "zh-Hans", "zh-Hans-CN", "es-419", "sr-Latn-RS", "de-CH-1996", "en-US-x-twain"] {
                let reply = try await put(["nativeLanguage": tag])
                #expect(reply.status == 200, "\(tag)")
                #expect(reply.json?["nativeLanguage"] as? String == tag)
            }
            #expect(try await put(["nativeLanguage": "ZH-hans-cn"]).json?["nativeLanguage"] as? String == "zh-Hans-CN",
                    "stored in canonical case")
            for bad in ["", "e", "english", "en_US", "en-", "-en", "en--US", "en-US-", "12", "en-x", "a-DE",
                        "en-US-abcdefghi", String(repeating: "a", count: 200), "fr;DROP"] {
                let reply = try await put(["targetLanguages": [["code": bad, "proficiencyLevel": "A1", "startedAt": 1]]])
                #expect(reply.status == 400, "\(bad)")
                #expect(reply.json?["code"] as? String == "bad_request")
            }
            let unknown = try await put(["interests": ["TRAVEL", "KNITTING"]])
            #expect(unknown.status == 400)
            #expect(unknown.json?["code"] as? String == "bad_request")
            let message = try #require(unknown.json?["message"] as? String)
            #expect(message.contains("KNITTING") && message.contains("TRAVEL, FOOD"))
            let goal = try await put(["learningGoals": ["travel"]])
            #expect(goal.status == 400, "values are case-sensitive, like every SDK enum")
            #expect((goal.json?["message"] as? String)?.contains("CONNECT_WITH_PEOPLE") == true)

            // currentTargetLanguage follows the target languages until one is chosen.
            let targets = try await put(["targetLanguages": [["code": "es-MX", "proficiencyLevel": "B1", "startedAt": 1]]])
            #expect(targets.json?["currentTargetLanguage"] as? String == "es-MX")
            let chosen = try await put(["currentTargetLanguage": "pt-BR"])
            #expect(chosen.json?["currentTargetLanguage"] as? String == "pt-BR")
        }
    }
}
