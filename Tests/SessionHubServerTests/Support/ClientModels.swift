import Foundation
import HubDomain
import SessionHubClient

/// Decodes and fetches hub bodies with the model types an app uses (HubDomain's, through the
/// client library).
enum ClientModels {
    /// What the tests compare of the client's models.
    struct Figures: Equatable {
        var language: String
        var wordsDueForReview: Int
        var totalWordsLearned: Int
        var todayMinutes: Int
        var estimatedCEFR: String
        var interests: [String]
        var currentTargetLanguage: String
    }

    /// Decodes `{"progress": [UserProgress]}` and a `UserProfile`.
    static func decode(progress: Data, profile: Data) throws -> Figures {
        struct Body: Decodable { let progress: [UserProgress] }
        let decoder = JSONDecoder()
        let entries = try decoder.decode(Body.self, from: progress).progress
        return figures(entries, try decoder.decode(UserProfile.self, from: profile))
    }

    /// `SessionHubClient.progress()` and `profile()` against the hub on `port`.
    static func fetch(port: Int, token: String) async throws -> Figures {
        let client = try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws", reconnect: nil) { token }
        return figures(try await client.progress(), try await client.profile())
    }

    /// The code of the refusal `SessionHubClient.profile()` throws against the hub on `port`
    /// (nil when it succeeds, the error's text when it fails otherwise).
    static func profileRefusal(port: Int, token: String) async -> String? {
        do {
            let client = try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws", reconnect: nil) { token }
            _ = try await client.profile()
            return nil
        } catch SessionHubClientError.refused(let code, _, _) {
            return code
        } catch {
            return "\(error)"
        }
    }

    private static func figures(_ progress: [UserProgress], _ profile: UserProfile) -> Figures {
        let first = progress.first
        return Figures(language: first?.language ?? "", wordsDueForReview: first?.wordsDueForReview ?? -1,
                       totalWordsLearned: first?.totalWordsLearned ?? -1, todayMinutes: first?.todayMinutes ?? -1,
                       estimatedCEFR: first?.estimatedCEFR.rawValue ?? "", interests: profile.interests.map(\.rawValue),
                       currentTargetLanguage: profile.currentTargetLanguage)
    }
}
