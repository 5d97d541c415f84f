import Foundation
import HubDomain
import HubProtocol
import HubStorage

/// The WebSocket side of ``AccountService``: answers `profile`, `updateProfile`, `history` and
/// `historySession` with the same rules and error codes as the HTTP API.
struct AccountRequests: Sendable {
    /// Nil when the hub runs without stores: every account request is then refused.
    let service: AccountService?

    /// The answer to `request` (a JSON text, or an error with its code), or nil when `request`
    /// is not an account request.
    func answer(_ request: ClientRequest, user: HubUser, ref: String?) async -> Result<String, APIError>? {
        switch request {
        case .profile, .updateProfile, .history, .historySession: break
        default: return nil
        }
        guard let service else {
            return .failure(APIError(.notFound, "storage_unavailable", "this hub keeps no profiles or history"))
        }
        do {
            // Off the event loops: the stores work synchronously.
            return .success(try await OffTheLoops.run { () async throws -> String in
                try await answer(request, user: user, ref: ref, service)
            })
        } catch let error as APIError {
            return .failure(error)
        } catch {
            return .failure(APIError(.serviceUnavailable, "storage_unavailable", "the store could not be reached; try again"))
        }
    }

    private func answer(_ request: ClientRequest, user: HubUser, ref: String?, _ service: AccountService) async throws -> String {
        switch request {
        case .profile:
            return try Self.encode(ProfileReply(ref: ref, profile: try await service.profile(userId: user.id, displayName: user.displayName)))
        case .updateProfile(let fields):
            let update: ProfileUpdate
            do {
                update = try JSONDecoder().decode(ProfileUpdate.self, from: fields)
            } catch let error as DecodingError {
                throw APIError(.badRequest, "invalid_field", "updateProfile: \(HubAPI.describe(error))")
            }
            let saved = try await service.updateProfile(update, userId: user.id, displayName: user.displayName)
            return try Self.encode(ProfileReply(ref: ref, profile: saved))
        case .history(let limit, let before):
            let page = try await service.history(userId: user.id, limit: limit, before: before)
            return try Self.encode(HistoryReply(ref: ref, total: page.total, sessions: page.sessions))
        case .historySession(let sessionId):
            return try Self.encode(HistorySessionReply(ref: ref, session: try await service.historySession(userId: user.id, sessionId: sessionId)))
        default:
            throw APIError.notFound()
        }
    }

    /// `historyUpdated`: pushed to every connection of a user when a session enters their history.
    static func historyUpdated(_ summary: HistorySummary) -> String? {
        try? encode(HistoryUpdatedPush(session: summary))
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private struct ProfileReply: Encodable {
        let type = ServerMessageType.profile.rawValue
        let ref: String?
        let profile: UserProfile
    }

    private struct HistoryReply: Encodable {
        let type = ServerMessageType.history.rawValue
        let ref: String?
        let total: Int
        let sessions: [HistorySummary]
    }

    private struct HistorySessionReply: Encodable {
        let type = ServerMessageType.historySession.rawValue
        let ref: String?
        let session: HistorySession
    }

    private struct HistoryUpdatedPush: Encodable {
        let type = ServerMessageType.historyUpdated.rawValue
        let session: HistorySummary
    }
}
