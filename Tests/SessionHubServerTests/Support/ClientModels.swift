import Foundation
import SessionHubClient

/// Decodes hub bodies with the client library's model types (a file of its own: the server's
/// storage module has types of the same names).
enum ClientModels {
    /// Decodes `{"progress": [UserProgress]}` and a `UserProfile`; returns a few decoded figures.
    static func decode(progress: Data, profile: Data) throws -> (wordsDueForReview: Int, interests: [String]) {
        struct Body: Decodable { let progress: [UserProgress] }
        let decoder = JSONDecoder()
        let entry = try decoder.decode(Body.self, from: progress).progress.first
        let decodedProfile = try decoder.decode(UserProfile.self, from: profile)
        return (entry?.wordsDueForReview ?? -1, decodedProfile.interests.map(\.rawValue))
    }
}
